/** A token's price as spec 2.9 answers it. */
export interface TokenPrice {
  /** USD per whole token. */
  usdPrice: number;
  decimals: number | null;
  blockId: number | null;
  /** Percent; -3.99 is minus 3.99 percent. */
  priceChange24h: number | null;
}

/** Token price upstream (spec 2.9); the adapter speaks the Jupiter Price API v3. */
export abstract class TokenPrices {
  /** Informational name for the response's `source`. */
  abstract readonly provider: string;

  /**
   * Prices of the given distinct mints (at most 50). A mint the upstream has no reliable price for
   * is absent from the map. Throws ToolUpstreamError on any upstream failure.
   */
  abstract prices(mints: readonly string[], signal: AbortSignal): Promise<ReadonlyMap<string, TokenPrice>>;
}
