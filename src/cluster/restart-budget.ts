export interface RestartPolicy {
  /** Restarts allowed within `windowMs`; one more crash inside the window gives up. */
  maxRestarts: number;
  windowMs: number;
  /** Delay before the second restart within the window; doubles for each further one. The first is immediate. */
  baseDelayMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { maxRestarts: 5, windowMs: 60_000, baseDelayMs: 500 };

/**
 * Paces the restarts of workers that died unexpectedly. A lone crash is replaced at once; crashes
 * in a row wait longer each time, and past `maxRestarts` in a window the crash is taken as a loop
 * that restarting cannot fix (a bad deploy, a dead dependency), so the primary should give up.
 */
export class RestartBudget {
  private readonly restarts: number[] = [];

  constructor(
    private readonly policy: RestartPolicy = DEFAULT_RESTART_POLICY,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records one restart and returns how long to wait before it, or null when the window's budget is spent. */
  take(): number | null {
    const now = this.now();
    while (this.restarts.length > 0 && this.restarts[0] <= now - this.policy.windowMs) this.restarts.shift();
    if (this.restarts.length >= this.policy.maxRestarts) return null;
    const delay = this.restarts.length === 0 ? 0 : this.policy.baseDelayMs * 2 ** (this.restarts.length - 1);
    this.restarts.push(now);
    return delay;
  }
}
