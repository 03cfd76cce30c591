import type { Secret } from '../../config/secret';
import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';
import { WebSearch, type SearchResult } from '../../modules/tools/ports/web-search';
import { fetchToolJson, isRecord } from './tool-http';

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
    const body = await fetchToolJson(
      this.endpoint,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query, search_depth: 'basic', ...(maxResults !== undefined && { max_results: maxResults }) }),
      },
      { name: 'tavily', signal, timeoutMs: this.options.timeoutMs, maxBytes: BODY_LIMIT_BYTES, secret },
    );
    const results = isRecord(body) ? body.results : undefined;
    if (!Array.isArray(results)) throw new ToolUpstreamError('malformed', 'tavily sent no results array');
    return results.flatMap((item: unknown) => (isRecord(item) && typeof item.url === 'string' ? [{ title: text(item.title), url: item.url, snippet: text(item.content) }] : []));
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
