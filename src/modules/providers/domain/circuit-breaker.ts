/** Defaults (docs/decisions.md, "Failure policy"): open at 50 percent failures over 60 s with at least 5 requests; half-open after 30 s. */
export interface BreakerPolicy {
  windowMs: number;
  minRequests: number;
  failureRatio: number;
  openMs: number;
}

export const DEFAULT_BREAKER_POLICY: BreakerPolicy = { windowMs: 60_000, minRequests: 5, failureRatio: 0.5, openMs: 30_000 };

const BUCKETS = 12;

/**
 * A provider's circuit breaker. Outcomes are counted in buckets over the window; when enough of
 * them failed the circuit opens and the provider is skipped. After `openMs` one trial request is
 * let through (half-open): its success closes the circuit, its failure opens it again.
 */
export class CircuitBreaker {
  private readonly buckets = Array.from({ length: BUCKETS }, () => ({ start: -Infinity, ok: 0, failed: 0 }));
  private openedAt: number | null = null;
  private trialInFlight = false;

  constructor(
    private readonly policy: BreakerPolicy = DEFAULT_BREAKER_POLICY,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): 'closed' | 'open' | 'half-open' {
    if (this.openedAt === null) return 'closed';
    return this.now() - this.openedAt >= this.policy.openMs ? 'half-open' : 'open';
  }

  /** Whether a request may go to the provider now; in half-open, only the one trial. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  succeeded(): void {
    if (this.openedAt !== null) {
      this.openedAt = null;
      this.trialInFlight = false;
      for (const bucket of this.buckets) bucket.start = -Infinity;
    }
    this.bucket().ok += 1;
  }

  /** A request that ended with no verdict on the provider (the client left): frees a half-open trial. */
  abandoned(): void {
    this.trialInFlight = false;
  }

  failed(): void {
    if (this.openedAt !== null) {
      // A failed trial (or a late failure while open): stay open for another period.
      this.openedAt = this.now();
      this.trialInFlight = false;
      return;
    }
    this.bucket().failed += 1;
    const { ok, failed } = this.totals();
    if (ok + failed >= this.policy.minRequests && failed / (ok + failed) >= this.policy.failureRatio) this.openedAt = this.now();
  }

  private bucket(): { start: number; ok: number; failed: number } {
    const width = this.policy.windowMs / BUCKETS;
    const start = Math.floor(this.now() / width) * width;
    const bucket = this.buckets[Math.floor(start / width) % BUCKETS];
    if (bucket.start !== start) Object.assign(bucket, { start, ok: 0, failed: 0 });
    return bucket;
  }

  private totals(): { ok: number; failed: number } {
    const since = this.now() - this.policy.windowMs;
    let ok = 0;
    let failed = 0;
    for (const bucket of this.buckets) {
      if (bucket.start > since) {
        ok += bucket.ok;
        failed += bucket.failed;
      }
    }
    return { ok, failed };
  }
}
