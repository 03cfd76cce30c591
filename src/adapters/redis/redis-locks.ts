import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

// Only the holder's token frees the lock: a holder whose lock lapsed must not free its successor's.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Locks shared by every replica (`SET NX PX` with a token, released by compare-and-delete), under
 * `<prefix>lock:<id>`: an A2A task's settlement lock, a channel's draw lock. Taking one throws while
 * Redis fails (the caller refuses rather than run unlocked).
 */
export class RedisLocks {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async acquire(id: string, ttlMs: number): Promise<string | null> {
    const token = randomUUID();
    const reply = await this.redis.set(this.key(id), token, 'PX', ttlMs, 'NX');
    return reply === 'OK' ? token : null;
  }

  async release(id: string, token: string): Promise<void> {
    // Release runs in cleanups, where a throw would hide the outcome being cleaned up; with Redis
    // away the lock simply lapses at its TTL.
    await this.redis.eval(RELEASE, 1, this.key(id), token).catch(() => undefined);
  }

  private key(id: string): string {
    return `${this.prefix}lock:${id}`;
  }
}
