import { decision, RateLimitStore, type RateDecision } from '../../modules/rate-limits/ports/rate-limit-store';

const SWEEP_AT = 10_000;

/** Per-instance fixed windows (no Redis, or Redis failing). Expired windows are swept as the map grows. */
export class MemoryRateLimitStore extends RateLimitStore {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  hit(key: string, limit: number, windowMs: number, weight = 1): Promise<RateDecision> {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      if (this.windows.size >= SWEEP_AT) this.sweep(now);
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += weight;
    return Promise.resolve(decision(window.count, limit, window.endsAt - now));
  }

  giveBack(key: string, weight: number): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.endsAt > this.now()) window.count = Math.max(0, window.count - weight);
    return Promise.resolve();
  }

  preview(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const now = this.now();
    const window = this.windows.get(key);
    if (!window || window.endsAt <= now) return Promise.resolve(decision(1, limit, windowMs));
    return Promise.resolve(decision(window.count + 1, limit, window.endsAt - now));
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}
