export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** Web search upstream (spec 2.8); the adapter speaks the Tavily search API. */
export abstract class WebSearch {
  /** Informational name for the response's `provider`. */
  abstract readonly provider: string;
  /** False without an upstream key: the search tool is off (503). */
  abstract readonly configured: boolean;

  /**
   * Results for `query`; `maxResults` undefined leaves the upstream's default. Throws
   * ToolUpstreamError on any upstream failure, its message free of the key.
   */
  abstract search(query: string, maxResults: number | undefined, signal: AbortSignal): Promise<SearchResult[]>;
}
