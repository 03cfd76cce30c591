import { ceilDiv, FEE_PERCENT } from '../../billing/domain/chat-cost';

/** What one claim costs its fee payer: two signatures (the fee payer's and the provider's) at 5,000 lamports each. */
export const CLAIM_FEE_LAMPORTS = 10_000n;
const LAMPORTS_PER_SOL = 1_000_000_000n;
/** GW_SOL_PRICE_USDC's default, 150 USDC, in atomic USDC per SOL. */
export const DEFAULT_SOL_PRICE_ATOMIC = 150_000_000n;

/**
 * The smallest quote whose fee (5 of every 105 units paid) pays one claim's network fee at
 * `solPriceAtomic` (atomic USDC per SOL): at 150 USDC a claim's 10,000 lamports are 1,500 atomic
 * units, paid from a quote of 1,500 x 105 / 5 = 31,500 (docs/decisions.md, "Escrow").
 */
export function escrowMinimumAtomic(solPriceAtomic: bigint): bigint {
  const claimFeeAtomic = ceilDiv(CLAIM_FEE_LAMPORTS * solPriceAtomic, LAMPORTS_PER_SOL);
  return ceilDiv(claimFeeAtomic * BigInt(100 + FEE_PERCENT), BigInt(FEE_PERCENT));
}
