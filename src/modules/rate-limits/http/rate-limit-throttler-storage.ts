import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type { RateLimitMetrics } from '../application/rate-limit-metrics';
import { routeLimiterOf } from '../domain/limiter-name';
import type { RateDecision, RateLimitStore } from '../ports/rate-limit-store';

/**
 * @nestjs/throttler's storage on the gateway's own fixed windows (spec 8): the same store as the
 * chat limits, so the counters are Redis-backed and shared by instances when Redis is configured,
 * and a refusal lasts until the window ends (the throttler's block is the window itself).
 */
export class RateLimitThrottlerStorage implements ThrottlerStorage {
  constructor(
    private readonly store: RateLimitStore,
    private readonly metrics: RateLimitMetrics,
  ) {}

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const decision = await this.store.hit(key, limit, ttl);
    // Counted here, where the route window refuses, like RateLimiter's windows: the guard then throws the 429.
    if (!decision.allowed) this.metrics.rejected(routeLimiterOf(key));
    return {
      totalHits: decision.allowed ? limit - decision.remaining : limit + 1,
      timeToExpire: decision.resetSecs,
      isBlocked: !decision.allowed,
      timeToBlockExpire: decision.allowed ? 0 : decision.resetSecs,
    };
  }
}

/** The record read back as the decision every limiter's headers are made from. */
export function decisionOf(record: ThrottlerStorageRecord, limit: number): RateDecision {
  return { allowed: !record.isBlocked, limit, remaining: Math.max(0, limit - record.totalHits), resetSecs: record.timeToExpire };
}
