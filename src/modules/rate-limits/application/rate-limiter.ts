import { Injectable } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { RATE_LIMITED_MESSAGE, rateLimitHeaders } from '../domain/rate-limit-headers';
import { limiterOf } from '../domain/limiter-name';
import { RateLimitStore, type RateDecision } from '../ports/rate-limit-store';
import { RateLimitMetrics } from './rate-limit-metrics';

export const WINDOW_MS = 60_000;

export interface Bucket {
  key: string;
  limit: number;
  /** What this request counts (1 unless the bucket counts something else, such as body bytes). */
  weight?: number;
}

/**
 * Counts a request against buckets in order (for the free tier: the client's, then the global
 * cap) and refuses with 429 at the first that is full, carrying that bucket's headers, which no
 * outer limiter overwrites. Returns the first bucket's decision for the success headers.
 */
@Injectable()
export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    private readonly metrics: RateLimitMetrics,
  ) {}

  async admit(buckets: readonly Bucket[]): Promise<RateDecision> {
    let first: RateDecision | undefined;
    for (const bucket of buckets) {
      const decision = await this.store.hit(bucket.key, bucket.limit, WINDOW_MS, bucket.weight);
      if (!decision.allowed) throw this.refusal(bucket, decision);
      first ??= decision;
    }
    return first as RateDecision;
  }

  /**
   * Refuses with the bucket's 429 when its window is full already, counting nothing: for work that
   * counts only if it fails, checked before that work (UnpaidBudget.validate).
   */
  async check(bucket: Bucket): Promise<void> {
    const decision = await this.store.preview(bucket.key, bucket.limit, WINDOW_MS);
    if (!decision.allowed) throw this.refusal(bucket, decision);
  }

  /** The 429 of a full bucket, with its window's headers, counted in the metrics. */
  private refusal(bucket: Bucket, decision: RateDecision): GatewayError {
    this.metrics.rejected(limiterOf(bucket.key));
    return new GatewayError('rate_limit.exceeded', RATE_LIMITED_MESSAGE, rateLimitHeaders(decision));
  }

  /** Takes back what a bucket counted for a request that turned out not to be what the bucket bounds. */
  giveBack(bucket: Bucket): Promise<void> {
    return this.store.giveBack(bucket.key, bucket.weight ?? 1);
  }
}
