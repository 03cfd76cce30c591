/** Spec 3.2: opens on more than half failures among at least this many samples in the window. */
export const MIN_BREAKER_SAMPLES = 4;

export type BreakerState = 'closed' | 'open';

/**
 * The escrow claim breaker (spec 3.2): claims' RPC outcomes in a sliding window; more than 50 %
 * failures among at least 4 samples opens it, and it closes again, with a fresh window, after the
 * reset time. Only RPC outcomes are recorded: a claim the program rejects is that claim's fault
 * (docs/decisions.md, "Escrow"), so no payer can pause everyone's claims.
 */
export class ClaimBreaker {
  private samples: Array<{ at: number; ok: boolean }> = [];
  private openUntil: number | null = null;

  constructor(
    private readonly windowMs: number,
    private readonly resetMs: number,
  ) {}

  state(now: number): BreakerState {
    if (this.openUntil === null) return 'closed';
    if (now < this.openUntil) return 'open';
    this.openUntil = null;
    this.samples = [];
    return 'closed';
  }

  /** When it reopens for claims (null while closed). */
  openedUntil(now: number): number | null {
    return this.state(now) === 'open' ? this.openUntil : null;
  }

  record(ok: boolean, now: number): void {
    if (this.state(now) === 'open') return;
    this.samples = this.samples.filter((sample) => sample.at > now - this.windowMs);
    this.samples.push({ at: now, ok });
    const failures = this.samples.filter((sample) => !sample.ok).length;
    if (this.samples.length >= MIN_BREAKER_SAMPLES && failures * 2 > this.samples.length) this.openUntil = now + this.resetMs;
  }

  /** The window's samples and failures, for the health report. */
  counts(now: number): { samples: number; failures: number } {
    const recent = this.samples.filter((sample) => sample.at > now - this.windowMs);
    return { samples: recent.length, failures: recent.filter((sample) => !sample.ok).length };
  }
}
