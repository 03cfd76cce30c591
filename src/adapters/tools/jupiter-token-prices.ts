import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';
import { TokenPrices, type TokenPrice } from '../../modules/tools/ports/token-prices';

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
    const body = await fetchJson(`${this.endpoint}?ids=${mints.map(encodeURIComponent).join(',')}`, signal, this.options.timeoutMs);
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

/** One JSON exchange under the caller's signal and our own timeout; messages say the status or what failed, never what was answered. */
async function fetchJson(url: string, signal: AbortSignal, timeoutMs: number): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const failure = (err: unknown): unknown => {
    if (signal.aborted) return signal.reason;
    if (timeout.aborted) return new ToolUpstreamError('timeout', `jupiter gave no answer within ${timeoutMs} ms`);
    if (err instanceof ToolUpstreamError) return err;
    return new ToolUpstreamError('network', `jupiter: request failed (${failureReason(err)})`);
  };
  try {
    // A redirect is not Jupiter's answer: it fails rather than being followed.
    const response = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.any([signal, timeout]) });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new ToolUpstreamError('status', `jupiter answered ${response.status}`);
    }
    const raw = await readBounded(response);
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new ToolUpstreamError('malformed', 'jupiter sent a body that is not JSON');
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
      throw new ToolUpstreamError('malformed', `jupiter sent a body over ${BODY_LIMIT_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * undici puts the reason in `cause`: a system error code, or a message such as "unexpected redirect".
 * Duck-typed: fetch's errors come from Node's own realm, where `instanceof Error` may not hold.
 */
function failureReason(err: unknown): string {
  const { cause } = (err ?? {}) as { cause?: unknown };
  const reason = (typeof cause === 'object' && cause !== null ? cause : (err ?? {})) as { code?: unknown; message?: unknown };
  if (typeof reason.code === 'string') return reason.code;
  const message = typeof reason.message === 'string' ? reason.message : 'error';
  return message.slice(0, 100);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
