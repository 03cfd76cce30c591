import type { Redis } from 'ioredis';
import { RedeliveryStore, type KeptAnswer } from '../../modules/chat/ports/redelivery-store';

/**
 * Kept answers shared by every replica through Redis, expiring with the TTL. While Redis fails
 * they are kept in this instance's memory store instead, so a departed payer can still have its
 * answer from this instance; a look-up asks both.
 */
export class RedisRedeliveryStore extends RedeliveryStore {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: RedeliveryStore,
  ) {
    super();
  }

  async keep(replayKey: string, answer: KeptAnswer, ttlMs: number): Promise<void> {
    try {
      await this.redis.set(key(replayKey), JSON.stringify(answer), 'PX', ttlMs);
    } catch {
      await this.fallback.keep(replayKey, answer, ttlMs);
    }
  }

  async find(replayKey: string): Promise<KeptAnswer | null> {
    try {
      const value = await this.redis.get(key(replayKey));
      if (value !== null) return JSON.parse(value) as KeptAnswer;
    } catch {
      // Redis away: only this instance's memory can have it.
    }
    return this.fallback.find(replayKey);
  }
}

function key(replayKey: string): string {
  return `gw:redelivery:${replayKey}`;
}
