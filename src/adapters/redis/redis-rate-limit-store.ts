import type { Redis } from 'ioredis';
import { decision, RateLimitStore, type RateDecision } from '../../modules/rate-limits/ports/rate-limit-store';

// Count and window start in one atomic step: the first hit sets the expiry, so the window starts at it.
const HIT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

const PREVIEW = `return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}`;

// Only within a window that still runs, never below zero.
const GIVE_BACK = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local take = math.min(count, tonumber(ARGV[1]))
if take > 0 then redis.call('DECRBY', KEYS[1], take) end
return count - take`;

/**
 * Fixed windows shared by every instance through Redis. While Redis fails, counting falls back to
 * this instance's memory: limits loosen per replica rather than every
 * request being refused.
 */
export class RedisRateLimitStore extends RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: RateLimitStore,
  ) {
    super();
  }

  async hit(key: string, limit: number, windowMs: number, weight = 1): Promise<RateDecision> {
    try {
      const [count, ttl] = (await this.redis.eval(HIT, 1, `gw:rl:${key}`, windowMs, weight)) as [number, number];
      return decision(count, limit, ttl);
    } catch {
      return this.fallback.hit(key, limit, windowMs, weight);
    }
  }

  async giveBack(key: string, weight: number): Promise<void> {
    try {
      await this.redis.eval(GIVE_BACK, 1, `gw:rl:${key}`, weight);
    } catch {
      await this.fallback.giveBack(key, weight);
    }
  }

  async preview(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    try {
      const [count, ttl] = (await this.redis.eval(PREVIEW, 1, `gw:rl:${key}`)) as [number, number];
      return decision(count + 1, limit, ttl < 0 ? windowMs : ttl);
    } catch {
      return this.fallback.preview(key, limit, windowMs);
    }
  }
}
