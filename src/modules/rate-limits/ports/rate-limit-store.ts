/** One counted request against a fixed window. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in this window after this one (0 once refused). */
  remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  resetSecs: number;
}

/**
 * Fixed-window counters (spec 8): a window starts at the first request it counts and lasts
 * `windowMs`. Counting and checking are one atomic step, so concurrent requests cannot overshoot.
 */
export abstract class RateLimitStore {
  /** Counts `weight` (1: a request; a body's bytes for a budget in bytes) and decides on the total. */
  abstract hit(key: string, limit: number, windowMs: number, weight?: number): Promise<RateDecision>;

  /** Takes back `weight` counted in the key's current window (never below zero; nothing once the window ended). */
  abstract giveBack(key: string, weight: number): Promise<void>;

  /**
   * What a hit would decide now, without counting it: for a bound on failures, checked before the
   * work that may fail (src/http/admin-token.ts).
   */
  abstract preview(key: string, limit: number, windowMs: number): Promise<RateDecision>;
}

export function decision(count: number, limit: number, msLeft: number): RateDecision {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSecs: Math.max(1, Math.ceil(msLeft / 1000)) };
}
