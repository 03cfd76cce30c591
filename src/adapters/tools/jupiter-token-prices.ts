import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';
import { TokenPrices, type TokenPrice } from '../../modules/tools/ports/token-prices';
import { fetchToolJson, isRecord } from './tool-http';

export interface JupiterTokenPricesOptions {
  /** Origin plus any path prefix; `/price/v3` is added. */
  baseUrl: string;
  /** For the whole exchange, body included. */
  timeoutMs: number;
}

/** Fifty prices are a few kilobytes: a body past this is not an answer worth reading. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/** The Jupiter Price API v3: `GET /price/v3?ids=<mint>,<mint>`, keyless. */
export class JupiterTokenPrices extends TokenPrices {
  readonly provider = 'jupiter';
  private readonly endpoint: string;

  constructor(private readonly options: JupiterTokenPricesOptions) {
    super();
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/price/v3`;
  }

  async prices(mints: readonly string[], signal: AbortSignal): Promise<ReadonlyMap<string, TokenPrice>> {
    const prices = new Map<string, TokenPrice>();
    if (mints.length === 0) return prices;
    // Jupiter reads the ids as one comma-separated list: the commas stay literal.
    const url = `${this.endpoint}?ids=${mints.map(encodeURIComponent).join(',')}`;
    const body = await fetchToolJson(url, { headers: { accept: 'application/json' } }, { name: 'jupiter', signal, timeoutMs: this.options.timeoutMs, maxBytes: BODY_LIMIT_BYTES });
    if (!isRecord(body)) throw new ToolUpstreamError('malformed', 'jupiter sent no object of prices');
    for (const mint of mints) {
      const price = Object.hasOwn(body, mint) ? tokenPrice(body[mint]) : undefined;
      if (price !== undefined) prices.set(mint, price);
    }
    return prices;
  }
}

/** Jupiter leaves out the mints it cannot price; an entry without a positive price is treated the same. */
function tokenPrice(entry: unknown): TokenPrice | undefined {
  if (!isRecord(entry)) return undefined;
  const { usdPrice } = entry;
  if (typeof usdPrice !== 'number' || !Number.isFinite(usdPrice) || usdPrice <= 0) return undefined;
  return {
    usdPrice,
    decimals: Number.isInteger(entry.decimals) ? (entry.decimals as number) : null,
    blockId: Number.isInteger(entry.blockId) ? (entry.blockId as number) : null,
    priceChange24h: typeof entry.priceChange24h === 'number' && Number.isFinite(entry.priceChange24h) ? entry.priceChange24h : null,
  };
}
