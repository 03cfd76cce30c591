import type { Redis } from 'ioredis';
import type { ChatCompletion } from '../../modules/providers/domain/chat-completion';
import { ResponseCache } from '../../modules/chat/ports/response-cache';

/**
 * Completions shared by every instance through Redis, expiring with the TTL. While Redis fails
 * the cache is bypassed (docs/decisions.md, "Cache"): a miss, and writes dropped.
 */
export class RedisResponseCache extends ResponseCache {
  constructor(private readonly redis: Redis) {
    super();
  }

  async get(key: string): Promise<ChatCompletion | null> {
    try {
      const value = await this.redis.get(`gw:cache:${key}`);
      return value === null ? null : (JSON.parse(value) as ChatCompletion);
    } catch {
      return null;
    }
  }

  async set(key: string, completion: ChatCompletion, ttlSecs: number): Promise<void> {
    try {
      await this.redis.set(`gw:cache:${key}`, JSON.stringify(completion), 'EX', ttlSecs);
    } catch {
      // Bypassed while Redis is away.
    }
  }
}
