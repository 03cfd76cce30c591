/** Solana's target slot (block) time: how a time span becomes a count of slots, and block heights turn into seconds. */
export const SLOT_MS = 400;
