import type { Secret } from '../../config/secret';
import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';
import { WebSearch, type SearchResult } from '../../modules/tools/ports/web-search';

export interface TavilyWebSearchOptions {
  /** Origin plus any path prefix; `/search` is added. */
  baseUrl: string;
  /** Null turns the search tool off. */
  apiKey: Secret | null;
  /** For the whole exchange, body included. */
  timeoutMs: number;
}

/** A search answer is a few kilobytes: a body past this is not an answer worth reading. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/** The Tavily search API: `POST /search` with a bearer key. */
export class TavilyWebSearch extends WebSearch {
  readonly provider = 'tavily';
  readonly configured: boolean;
  private readonly endpoint: string;

  constructor(private readonly options: TavilyWebSearchOptions) {
    super();
    this.configured = options.apiKey !== null;
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/search`;
  }

  async search(query: string, maxResults: number | undefined, signal: AbortSignal): Promise<SearchResult[]> {
    const key = this.options.apiKey;
    if (key === null) throw new ToolUpstreamError('status', 'tavily has no API key configured');
    const secret = key.reveal();
    const body = await fetchJson(
      this.endpoint,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query, search_depth: 'basic', ...(maxResults !== undefined && { max_results: maxResults }) }),
      },
      signal,
      this.options.timeoutMs,
      secret,
    );
    const results = isRecord(body) ? body.results : undefined;
    if (!Array.isArray(results)) throw new ToolUpstreamError('malformed', 'tavily sent no results array');
    return results.flatMap((item: unknown) => (isRecord(item) && typeof item.url === 'string' ? [{ title: text(item.title), url: item.url, snippet: text(item.content) }] : []));
  }
}

/**
 * One JSON exchange under the caller's signal and our own timeout. Messages say the status or what
 * failed, never what was answered; a transport failure's text is stripped of `key`, which fetch
 * quotes when it refuses a header value.
 */
async function fetchJson(url: string, init: RequestInit, signal: AbortSignal, timeoutMs: number, key: string): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const failure = (err: unknown): unknown => {
    if (signal.aborted) return signal.reason;
    if (timeout.aborted) return new ToolUpstreamError('timeout', `tavily gave no answer within ${timeoutMs} ms`);
    if (err instanceof ToolUpstreamError) return err;
    return new ToolUpstreamError('network', `tavily: request failed (${failureReason(err, key)})`);
  };
  try {
    // A redirect is not Tavily's answer, and following it would send the query (same-origin, the key too) elsewhere.
    const response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.any([signal, timeout]) });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new ToolUpstreamError('status', `tavily answered ${response.status}`);
    }
    const raw = await readBounded(response);
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new ToolUpstreamError('malformed', 'tavily sent a body that is not JSON');
    }
  } catch (err) {
    throw failure(err);
  }
}

async function readBounded(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > BODY_LIMIT_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ToolUpstreamError('malformed', `tavily sent a body over ${BODY_LIMIT_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * undici puts the reason in `cause`: a system error code, or a message such as "unexpected redirect".
 * Duck-typed: fetch's errors come from Node's own realm, where `instanceof Error` may not hold.
 */
function failureReason(err: unknown, key: string): string {
  const { cause } = (err ?? {}) as { cause?: unknown };
  const reason = (typeof cause === 'object' && cause !== null ? cause : (err ?? {})) as { code?: unknown; message?: unknown };
  if (typeof reason.code === 'string') return reason.code;
  const message = typeof reason.message === 'string' ? reason.message : 'error';
  return (key === '' ? message : message.split(key).join('[redacted]')).slice(0, 100);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
