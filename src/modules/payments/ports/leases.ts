/**
 * Named leases, so that one replica at a time runs a background worker (the settlement
 * reconciler). Held by `holder` until `ttlMs` passes without a renewal.
 */
export abstract class Leases {
  /** Takes the lease, or renews it when `holder` has it already; false while another holder's lease runs. */
  abstract acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;

  /** Gives the lease up at once, if `holder` has it (a replica stopping, so another need not wait out the TTL). */
  abstract release(name: string, holder: string): Promise<void>;
}
