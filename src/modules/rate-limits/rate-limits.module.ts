import { Module } from '@nestjs/common';
import { RateLimitMetrics } from './application/rate-limit-metrics';
import { RateLimiter } from './application/rate-limiter';
import { UnpaidBudget } from './application/unpaid-budget';

/**
 * Fixed-window rate limits over the RateLimitStore port, which the state adapters provide (Redis,
 * with memory while it fails, or memory alone: docs/decisions.md, "Adapters chosen per technology").
 */
@Module({
  providers: [RateLimiter, RateLimitMetrics, UnpaidBudget],
  exports: [RateLimiter, RateLimitMetrics, UnpaidBudget],
})
export class RateLimitsModule {}
