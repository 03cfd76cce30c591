import { Agent, errors, type Dispatcher } from 'undici';
import type { ProviderName } from '../../../modules/providers/domain/provider-name';
import { UpstreamError } from '../../../modules/providers/domain/upstream-error';
import { redactSecrets } from './secret-redaction';

/** Defaults (docs/decisions.md, "Upstream calls"): connect 10 s, first byte 60 s, 60 s of silence between chunks. */
export interface UpstreamTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
}

export type UpstreamResponse = Dispatcher.ResponseData;

/**
 * The HTTP client every provider adapter posts through: one undici connection pool per origin
 * (keep-alive, so a request does not pay a handshake), the three timeouts, and failures turned
 * into UpstreamError. undici's `request` rather than `fetch`: it is several times cheaper per call
 * and its timeouts separate connect, first byte and idle body.
 */
export class UpstreamHttp {
  private readonly agent: Agent;
  /** Each provider's headers (a stable object) with the two every call sends, merged once. */
  private readonly merged = new WeakMap<Record<string, string>, Record<string, string>>();

  constructor(timeouts: UpstreamTimeouts) {
    this.agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.firstByteMs,
      bodyTimeout: timeouts.idleMs,
      keepAliveTimeout: 30_000,
    });
  }

  /**
   * POSTs JSON and resolves with a 2xx response whose body is still to be read. Other statuses and
   * transport failures throw UpstreamError; an abort through `signal` rethrows the signal's reason.
   */
  async postJson(provider: ProviderName, url: string, headers: Record<string, string>, body: unknown, signal: AbortSignal): Promise<UpstreamResponse> {
    let response: UpstreamResponse;
    try {
      // The agent's own request: undici's top-level `request(url)` builds a URL object per call to find the origin.
      const { origin, path } = originAndPath(url);
      response = await this.agent.request({ origin, path, method: 'POST', headers: this.headersFor(headers), body: JSON.stringify(body), signal });
    } catch (err) {
      throw upstreamFailure(provider, err, signal);
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    throw statusError(provider, response, await bodyExcerpt(response, credentials(headers)));
  }

  private headersFor(headers: Record<string, string>): Record<string, string> {
    let merged = this.merged.get(headers);
    if (!merged) {
      merged = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
      this.merged.set(headers, merged);
    }
    return merged;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Past this many distinct URLs the cache of their origins and paths starts over (providers post to a handful; Gemini's carry the model). */
const MAX_PARSED_URLS = 256;
const parsedUrls = new Map<string, { origin: string; path: string }>();

/** A URL as undici's origin and path, parsed as undici would (WHATWG URL: `..` resolved, spaces escaped), once per URL. */
function originAndPath(url: string): { origin: string; path: string } {
  let parsed = parsedUrls.get(url);
  if (!parsed) {
    const { origin, pathname, search } = new URL(url);
    parsed = { origin, path: pathname + search };
    if (parsedUrls.size >= MAX_PARSED_URLS) parsedUrls.clear();
    parsedUrls.set(url, parsed);
  }
  return parsed;
}

/**
 * 408, 429 and 5xx say "not now": another candidate may answer. 401 and 403 say our key is not
 * accepted, which another provider's key may be. Any other 4xx is the provider refusing this
 * request: trying elsewhere would not help. What the provider said goes with the error, for the log.
 */
function statusError(provider: ProviderName, response: UpstreamResponse, excerpt: string): UpstreamError {
  const status = response.statusCode;
  const retryable = status === 408 || status === 429 || status >= 500 || status === 401 || status === 403;
  return new UpstreamError(provider, retryable ? 'unavailable' : 'bad_response', `${provider} answered HTTP ${status}`, {
    status,
    bodyExcerpt: excerpt,
    requestId: REQUEST_ID_HEADERS.map((name) => headerText(response, name)).find((id) => id !== undefined),
    retryAfter: headerText(response, 'retry-after'),
  });
}

/** Anthropic names its id `request-id`; OpenAI and the APIs copying it `x-request-id`. Gemini documents none. */
const REQUEST_ID_HEADERS = ['request-id', 'x-request-id'];

/** An excerpt of this many characters is kept of an error body. */
const EXCERPT_CHARS = 2048;
/** Redacted before the cut, with room past it (2,048 characters are at most 8 KiB), so that a key at the cut is redacted whole. */
const REDACTED_BYTES = 16 * 1024;
/** Past this much, an error body is not read on: the connection is dropped rather than drained. */
const DRAIN_LIMIT_BYTES = 128 * 1024;

/**
 * The start of an error body, secrets redacted, cut to EXCERPT_CHARS. The rest is read and thrown
 * away (up to DRAIN_LIMIT_BYTES) so that the connection stays reusable; a body that fails midway
 * leaves what had arrived.
 */
async function bodyExcerpt(response: UpstreamResponse, secrets: readonly string[]): Promise<string> {
  const kept: Buffer[] = [];
  let readBytes = 0;
  try {
    for await (const chunk of response.body) {
      if (readBytes < REDACTED_BYTES) kept.push(chunk as Buffer);
      readBytes += (chunk as Buffer).length;
      if (readBytes >= DRAIN_LIMIT_BYTES) break;
    }
  } catch {
    // What arrived is the excerpt.
  }
  const text = Buffer.concat(kept).subarray(0, REDACTED_BYTES).toString('utf8');
  return redactSecrets(text, secrets).slice(0, EXCERPT_CHARS);
}

/** The header values that carry our key, and the bare token of a bearer value. */
function credentials(headers: Record<string, string>): string[] {
  return Object.entries(headers).flatMap(([name, value]) => (CREDENTIAL_HEADERS.has(name.toLowerCase()) ? [value, value.replace(/^Bearer /i, '')] : []));
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key']);

function headerText(response: UpstreamResponse, name: string): string | undefined {
  const value = response.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text.slice(0, 200);
}

/** A transport failure as UpstreamError (our own abort passes through unchanged). */
export function upstreamFailure(provider: ProviderName, err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (err instanceof UpstreamError) return err;
  const reason =
    err instanceof errors.HeadersTimeoutError
      ? 'no response within the first-byte timeout'
      : err instanceof errors.BodyTimeoutError
        ? 'silent for longer than the idle timeout'
        : err instanceof errors.ConnectTimeoutError
          ? 'connect timeout'
          : `connection failed (${(err as { code?: string }).code ?? (err as Error).name ?? 'error'})`;
  return new UpstreamError(provider, 'unavailable', `${provider}: ${reason}`, {}, { cause: err });
}

/** Reads a whole JSON body; anything unparsable is the provider's malformed answer. */
export async function readJson(provider: ProviderName, response: UpstreamResponse, signal: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await response.body.text();
  } catch (err) {
    throw upstreamFailure(provider, err, signal);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamError(provider, 'bad_response', `${provider} sent a body that is not JSON`);
  }
}
