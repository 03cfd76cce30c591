/** One bound a sponsored fee counts against: its counter key and its limit per window, in lamports. */
export interface SponsorshipBound {
  key: string;
  limit: bigint;
}

export type SponsorshipCharge =
  /** Charged to every bound; `totals` are the counters afterwards, in the order of the bounds. */
  | { charged: true; totals: bigint[] }
  /** Nothing charged: the bound at `refusedBy` would have passed its limit; `totals` are the counters as they stand. */
  | { charged: false; refusedBy: number; totals: bigint[] };

/**
 * Sponsored network fees counted per fixed window (docs/decisions.md, "Bounded sponsorship"),
 * shared by every instance when Redis is configured. A charge is all or nothing, checked and
 * counted in one step, so concurrent payments cannot overshoot a bound together.
 */
export abstract class SponsorshipLedger {
  abstract charge(window: number, bounds: readonly SponsorshipBound[], lamports: bigint, windowMs: number): Promise<SponsorshipCharge>;

  /** Gives back a charge whose fee was never paid (the payment was never sent). */
  abstract refund(window: number, keys: readonly string[], lamports: bigint): Promise<void>;

  /** A counter as it stands. */
  abstract total(window: number, key: string): Promise<bigint>;
}
