import type { Redis } from 'ioredis';
import { RedeliveryStore, type KeptAnswer } from '../../modules/chat/ports/redelivery-store';

/** Kept answers shared by every replica through Redis, expiring with the TTL; while Redis fails, nothing is kept or found. */
export class RedisRedeliveryStore extends RedeliveryStore {
  constructor(private readonly redis: Redis) {
    super();
  }

  async keep(replayKey: string, answer: KeptAnswer, ttlMs: number): Promise<void> {
    await this.redis.set(`gw:redelivery:${replayKey}`, JSON.stringify(answer), 'PX', ttlMs);
  }

  async find(replayKey: string): Promise<KeptAnswer | null> {
    try {
      const value = await this.redis.get(`gw:redelivery:${replayKey}`);
      return value === null ? null : (JSON.parse(value) as KeptAnswer);
    } catch {
      return null;
    }
  }
}
