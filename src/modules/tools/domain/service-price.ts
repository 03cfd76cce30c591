import { formatUsdc, parseUsdc } from '../../billing/domain/atomic-usdc';
import { FEE_PERCENT, type ChatCost } from '../../billing/domain/chat-cost';

/** Only plain decimals: `String(n)` writes very small or very large numbers with an exponent, which are refused rather than reinterpreted. */
const PLAIN_DECIMAL = /^\d+(?:\.\d+)?$/;

/**
 * A registry price (spec 2.7): a JSON number or a decimal string, non-negative, at most 6 decimals,
 * as atomic USDC. A number is read through its shortest round-trip text, so `0.3` is exactly
 * 300,000 while `0.1 + 0.2` (0.30000000000000004) has too many decimals. Null means unpriced;
 * undefined means invalid.
 */
export function parseServicePrice(value: unknown): bigint | null | undefined {
  if (value === null) return null;
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return undefined;
  }
  if (!PLAIN_DECIMAL.test(text)) return undefined;
  return parseUsdc(text) ?? undefined;
}

/** The price a payer is charged for one request: the flat price plus the 5 percent fee, rounded up once. */
export function withFee(priceAtomic: bigint): ChatCost {
  if (priceAtomic < 0n) throw new RangeError('prices are never negative');
  const total = (priceAtomic * BigInt(100 + FEE_PERCENT) + 99n) / 100n;
  return { total, providerCost: priceAtomic, platformFee: total - priceAtomic };
}

/** The spec 2.7 `pricing` label: `$0.0105 per request (5% fee included)`, or `not priced`. */
export function pricingLabel(priceAtomic: bigint | null): string {
  if (priceAtomic === null) return 'not priced';
  return `$${trimDecimals(formatUsdc(withFee(priceAtomic).total))} per request (${FEE_PERCENT}% fee included)`;
}

/** The wire `price_per_request_usdc`: the flat price before the fee. For display only; amounts charged stay bigint. */
export function priceUsdc(priceAtomic: bigint | null): number | null {
  return priceAtomic === null ? null : Number(formatUsdc(priceAtomic));
}

/** "0.010500" -> "0.0105", "1.050000" -> "1.05", "0.000000" -> "0.00": trailing zeros go, two decimals stay. */
function trimDecimals(sixDecimals: string): string {
  return sixDecimals.replace(/(\.\d{2}\d*?)0+$/, '$1');
}
