import { USDC_DECIMALS } from '../../../../libs/x402';

/**
 * USDC amounts as integer atomic units (6 decimals: 1 USDC = 1,000,000). Decimal strings exist only
 * at the edge: parsed once from configuration, formatted once for responses. Never floating point.
 */
export const ATOMIC_PER_USDC = 10n ** BigInt(USDC_DECIMALS);

const DECIMAL = /^(\d{1,15})(?:\.(\d{1,6}))?$/;

/** "1.75" -> 1_750_000n. Null for anything that is not a non-negative decimal with at most 6 places. */
export function parseUsdc(decimal: string): bigint | null {
  const match = DECIMAL.exec(decimal);
  if (!match) return null;
  const [, whole, fraction = ''] = match;
  return BigInt(whole) * ATOMIC_PER_USDC + BigInt(fraction.padEnd(USDC_DECIMALS, '0'));
}

/** 21_505n -> "0.021505": always exactly 6 decimals (the spec's monetary strings). */
export function formatUsdc(atomic: bigint): string {
  return formatScaled(atomic, USDC_DECIMALS);
}

/** A non-negative integer in units of 10^-decimals, written with exactly that many places. */
export function formatScaled(value: bigint, decimals: number): string {
  if (value < 0n) throw new RangeError('amounts are never negative');
  const digits = value.toString().padStart(decimals + 1, '0');
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}
