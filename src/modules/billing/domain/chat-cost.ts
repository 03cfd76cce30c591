/**
 * The chat price (spec 1.4, 4.1): provider cost plus the fixed
 * 5 percent platform fee, in atomic USDC, computed exactly with one upward rounding.
 */
export const FEE_PERCENT = 5;

/** Billed completion tokens never exceed this, whatever max_tokens asks (spec 2.1). */
export const COMPLETION_TOKEN_CEILING = 8192;

const TOKENS_PER_MILLION = 1_000_000n;

/** A model's list price: atomic USDC per million tokens (the catalog's USDC rate x 10^6). */
export interface TokenRates {
  inputAtomicPerMillion: bigint;
  outputAtomicPerMillion: bigint;
}

export interface ChatCost {
  /** What the payer is charged: ceil(provider cost x 1.05). */
  total: bigint;
  providerCost: bigint;
  /** total - providerCost, so the three always add up. */
  platformFee: bigint;
}

/** min(max_tokens if given, the model's max output, 8192). */
export function billedCompletionTokens(maxTokens: number | undefined, modelMaxOutput: number): number {
  return Math.min(maxTokens ?? COMPLETION_TOKEN_CEILING, modelMaxOutput, COMPLETION_TOKEN_CEILING);
}

export function chatCost(inputTokens: number, outputTokens: number, rates: TokenRates): ChatCost {
  // Sum in atomic-units-per-million: exact, no rounding yet.
  const scaled = BigInt(inputTokens) * rates.inputAtomicPerMillion + BigInt(outputTokens) * rates.outputAtomicPerMillion;
  const total = ceilDiv(scaled * BigInt(100 + FEE_PERCENT), TOKENS_PER_MILLION * 100n);
  const providerCost = ceilDiv(scaled, TOKENS_PER_MILLION);
  return { total, providerCost, platformFee: total - providerCost };
}

export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}
