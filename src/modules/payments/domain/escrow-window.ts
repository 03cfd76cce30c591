import { SLOT_MS } from './solana-slot';

/** The program's own bound on how far ahead an escrow may expire (docs/decisions.md, "Escrow"). */
export const MAX_EXPIRY_SLOTS = 216_000n;
/** Beyond the longest stream, the time the claim gets to land (its retries and the breaker's pauses). */
export const CLAIM_MARGIN_MS = 900_000;

/** The expiry slots a deposit may name, from the current slot: far enough for the answer and its claim, no further than the program allows. */
export interface ExpiryWindow {
  minSlotsAhead: bigint;
  maxSlotsAhead: bigint;
  minSlot: bigint;
  maxSlot: bigint;
}

export function expiryWindow(currentSlot: bigint, streamMaxMs: number): ExpiryWindow {
  const minSlotsAhead = BigInt(Math.ceil((streamMaxMs + CLAIM_MARGIN_MS) / SLOT_MS));
  return { minSlotsAhead, maxSlotsAhead: MAX_EXPIRY_SLOTS, minSlot: currentSlot + minSlotsAhead, maxSlot: currentSlot + MAX_EXPIRY_SLOTS };
}
