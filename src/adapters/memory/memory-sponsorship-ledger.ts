import { SponsorshipLedger, type SponsorshipBound, type SponsorshipCharge } from '../../modules/payments/ports/sponsorship-ledger';

/** Per-instance sponsorship counters (no Redis, or Redis failing). Only the current and the previous window are kept. */
export class MemorySponsorshipLedger extends SponsorshipLedger {
  private readonly windows = new Map<number, Map<string, bigint>>();

  charge(window: number, bounds: readonly SponsorshipBound[], lamports: bigint): Promise<SponsorshipCharge> {
    const counters = this.counters(window);
    const totals = bounds.map((bound) => counters.get(bound.key) ?? 0n);
    const refusedBy = bounds.findIndex((bound, i) => totals[i] + lamports > bound.limit);
    if (refusedBy >= 0) return Promise.resolve({ charged: false, refusedBy, totals });
    bounds.forEach((bound, i) => counters.set(bound.key, totals[i] + lamports));
    const keys = bounds.map((bound) => bound.key);
    return Promise.resolve({ charged: true, totals: totals.map((total) => total + lamports), refund: () => Promise.resolve(this.lower(window, keys, lamports)) });
  }

  /** Takes `lamports` off counters of the window, never below zero. */
  lower(window: number, keys: readonly string[], lamports: bigint): void {
    const counters = this.windows.get(window);
    for (const key of keys) {
      const total = counters?.get(key);
      if (total !== undefined) counters?.set(key, total > lamports ? total - lamports : 0n);
    }
  }

  /** Raises counters of the window to totals seen elsewhere (never lowers them). */
  raise(window: number, keys: readonly string[], totals: readonly bigint[]): void {
    const counters = this.counters(window);
    keys.forEach((key, i) => {
      if (totals[i] > (counters.get(key) ?? 0n)) counters.set(key, totals[i]);
    });
  }

  total(window: number, key: string): Promise<bigint> {
    return Promise.resolve(this.windows.get(window)?.get(key) ?? 0n);
  }

  private counters(window: number): Map<string, bigint> {
    let counters = this.windows.get(window);
    if (!counters) {
      for (const old of this.windows.keys()) if (old < window - 1) this.windows.delete(old);
      counters = new Map();
      this.windows.set(window, counters);
    }
    return counters;
  }
}
