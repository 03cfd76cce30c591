import { ReplayStore, ReplayStoreFull } from '../../modules/payments/ports/replay-store';

/** Spec 5.3: the in-memory fallback holds about 10,000 signatures, oldest evicted first. */
export const MEMORY_REPLAY_CAPACITY = 10_000;

/**
 * Per-instance replay protection (no Redis, or Redis failing): a bounded map of claims with
 * expiry. Past its capacity it drops expired claims only; a live claim is never evicted (that would
 * re-open its payment), so when every slot is live a new claim is refused.
 */
export class MemoryReplayStore extends ReplayStore {
  private readonly claims = new Map<string, number>();

  constructor(
    private readonly capacity = MEMORY_REPLAY_CAPACITY,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  seen(signature: string): Promise<boolean> {
    return Promise.resolve(this.live(signature));
  }

  claim(signature: string, ttlMs: number): Promise<boolean> {
    if (this.live(signature)) return Promise.resolve(false);
    if (this.claims.size >= this.capacity) this.dropExpired();
    if (this.claims.size >= this.capacity) return Promise.reject(new ReplayStoreFull());
    this.claims.set(signature, this.now() + ttlMs);
    return Promise.resolve(true);
  }

  release(signature: string): Promise<void> {
    this.claims.delete(signature);
    return Promise.resolve();
  }

  hold(signature: string, ttlMs: number): Promise<void> {
    const until = this.now() + ttlMs;
    // Holding a claim this store already has takes no new slot; a lapsed one is claimed again.
    if (this.live(signature)) this.claims.set(signature, Math.max(until, this.claims.get(signature) as number));
    else return this.claim(signature, ttlMs).then(() => undefined);
    return Promise.resolve();
  }

  durable(): boolean {
    return false;
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [signature, expiresAt] of this.claims) if (expiresAt <= now) this.claims.delete(signature);
  }

  private live(signature: string): boolean {
    const expiresAt = this.claims.get(signature);
    if (expiresAt === undefined) return false;
    if (expiresAt > this.now()) return true;
    this.claims.delete(signature);
    return false;
  }
}
