/** One bound a sponsored fee counts against: its counter key and its limit per window, in lamports. */
export interface SponsorshipBound {
  key: string;
  limit: bigint;
}

export type SponsorshipCharge =
  /**
   * Charged to every bound; `totals` are the counters afterwards, in the order of the bounds.
   * `refund` gives the charge back (the payment was never sent) to the counters that took it.
   */
  | { charged: true; totals: bigint[]; refund: () => Promise<void> }
  /** Nothing charged: the bound at `refusedBy` would have passed its limit; `totals` are the counters as they stand. */
  | { charged: false; refusedBy: number; totals: bigint[] };

/**
 * Sponsored network fees counted per fixed window (docs/decisions.md, "Bounded sponsorship"),
 * shared by every instance when Redis is configured. A charge is all or nothing, checked and
 * counted in one step, so concurrent payments cannot overshoot a bound together.
 */
export abstract class SponsorshipLedger {
  abstract charge(window: number, bounds: readonly SponsorshipBound[], lamports: bigint, windowMs: number): Promise<SponsorshipCharge>;

  /** A counter as it stands. */
  abstract total(window: number, key: string): Promise<bigint>;
}
