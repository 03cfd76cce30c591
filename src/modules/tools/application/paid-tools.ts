import { Injectable } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import type { PriceInput, SearchInput } from '../domain/tool-requests';
import { ToolUpstreamError } from '../domain/tool-upstream-error';
import { TokenPrices, type TokenPrice } from '../ports/token-prices';
import { WebSearch, type SearchResult } from '../ports/web-search';

export interface SearchAnswer {
  query: string;
  results: SearchResult[];
  provider: string;
}

export interface PriceAnswer {
  prices: Array<{ mint: string; price: WirePrice | null }>;
  source: string;
  as_of: string;
}

/** Spec 2.9's price object. */
export interface WirePrice {
  usd_price: number;
  decimals: number | null;
  block_id: number | null;
  price_change_24h: number | null;
}

/**
 * The two tools the gateway serves itself (spec 4.6, 4.7), run once their payment has settled.
 * An upstream failure becomes the spec's static 502; what went wrong is logged, never shown, and
 * never carries the upstream key (the adapters keep it out of their messages).
 */
/** The paid request a tool call answers: its signal (the client leaving, the timeout) and its id, named on a failure's log line. */
export interface ToolRequest {
  signal: AbortSignal;
  requestId: string;
}

@Injectable()
export class PaidTools {
  constructor(
    private readonly search: WebSearch,
    private readonly prices: TokenPrices,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(PaidTools.name);
  }

  async webSearch(input: SearchInput, { signal, requestId }: ToolRequest): Promise<SearchAnswer> {
    try {
      const results = await this.search.search(input.query, input.maxResults, signal);
      return { query: input.query, results, provider: this.search.provider };
    } catch (err) {
      throw this.upstreamFailed(err, 'tools.search_provider_error', signal, requestId);
    }
  }

  /** Answers in request order; a repeated mint answers null on its repeat (spec 2.9). */
  async tokenPrices(input: PriceInput, { signal, requestId }: ToolRequest): Promise<PriceAnswer> {
    const distinct = [...new Set(input.mints)];
    let known: ReadonlyMap<string, TokenPrice>;
    try {
      known = await this.prices.prices(distinct, signal);
    } catch (err) {
      throw this.upstreamFailed(err, 'tools.price_provider_error', signal, requestId);
    }
    const seen = new Set<string>();
    const prices = input.mints.map((mint) => {
      const first = !seen.has(mint);
      seen.add(mint);
      const price = first ? known.get(mint) : undefined;
      return { mint, price: price ? wirePrice(price) : null };
    });
    return { prices, source: this.prices.provider, as_of: new Date().toISOString() };
  }

  private upstreamFailed(err: unknown, code: 'tools.search_provider_error' | 'tools.price_provider_error', signal: AbortSignal, requestId: string): unknown {
    // The request ended first (its client left): that is the reason, not the upstream.
    if (signal.aborted) return signal.reason;
    if (!(err instanceof ToolUpstreamError)) return err;
    this.logger.warn({ request_id: requestId, kind: err.kind, detail: err.message }, 'tool upstream failed after payment');
    return new GatewayError(code, err.message, {}, { cause: err });
  }
}

function wirePrice(price: TokenPrice): WirePrice {
  return { usd_price: price.usdPrice, decimals: price.decimals, block_id: price.blockId, price_change_24h: price.priceChange24h };
}
