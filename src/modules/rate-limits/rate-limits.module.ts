import { Module } from '@nestjs/common';
import { RateLimiter } from './application/rate-limiter';

/**
 * Fixed-window rate limits over the RateLimitStore port, which the state adapters provide (Redis,
 * with memory while it fails, or memory alone: docs/decisions.md, "Adapters chosen per technology").
 */
@Module({
  providers: [RateLimiter],
  exports: [RateLimiter],
})
export class RateLimitsModule {}
