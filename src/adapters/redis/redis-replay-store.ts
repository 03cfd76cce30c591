import type { Redis } from 'ioredis';
import { ReplayStore } from '../../modules/payments/ports/replay-store';

/**
 * Replay protection shared by every instance: `SET NX PX` is the atomic claim. While Redis fails,
 * look-ups and claims go to this instance's memory store, and
 * `durable()` says no, so durable-nonce payments are refused until Redis returns.
 */
export class RedisReplayStore extends ReplayStore {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: ReplayStore,
  ) {
    super();
  }

  async seen(signature: string): Promise<boolean> {
    try {
      return (await this.redis.exists(key(signature))) === 1 || (await this.fallback.seen(signature));
    } catch {
      return this.fallback.seen(signature);
    }
  }

  async claim(signature: string, ttlMs: number): Promise<boolean> {
    // A claim taken in memory during an outage still counts once Redis is back.
    if (await this.fallback.seen(signature)) return false;
    let claimed: boolean;
    try {
      claimed = (await this.redis.set(key(signature), '1', 'PX', ttlMs, 'NX')) === 'OK';
    } catch {
      return this.fallback.claim(signature, ttlMs);
    }
    // Written through to memory too: should Redis go away mid-request, a replay on this instance
    // still meets the claim.
    if (claimed) await this.fallback.claim(signature, ttlMs).catch(() => undefined);
    return claimed;
  }

  async release(signature: string): Promise<void> {
    await this.fallback.release(signature);
    try {
      await this.redis.del(key(signature));
    } catch {
      // The claim expires with its TTL.
    }
  }

  async hold(signature: string, ttlMs: number): Promise<void> {
    await this.fallback.hold(signature, ttlMs);
    try {
      // Takes the claim if it lapsed; never shortens a longer one (a durable-nonce claim): GT keeps the later expiry.
      const taken = await this.redis.set(key(signature), '1', 'PX', ttlMs, 'NX');
      if (taken !== 'OK') await this.redis.pexpire(key(signature), ttlMs, 'GT');
    } catch {
      // Held in this instance's memory meanwhile.
    }
  }

  durable(): boolean {
    return this.redis.status === 'ready';
  }
}

function key(signature: string): string {
  return `gw:replay:${signature}`;
}
