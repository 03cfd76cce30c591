import { Module } from '@nestjs/common';
import { MemoryRateLimitStore } from '../../adapters/memory/memory-rate-limit-store';
import { RedisConnection } from '../../adapters/redis/redis-connection';
import { RedisRateLimitStore } from '../../adapters/redis/redis-rate-limit-store';
import { RateLimiter } from './application/rate-limiter';
import { RateLimitStore } from './ports/rate-limit-store';

/** Fixed-window rate limits: Redis-backed when REDIS_URL is set (memory while it fails), memory otherwise. */
@Module({
  providers: [
    RateLimiter,
    {
      provide: RateLimitStore,
      useFactory: (redis?: RedisConnection) => (redis ? new RedisRateLimitStore(redis.client, new MemoryRateLimitStore()) : new MemoryRateLimitStore()),
      inject: [{ token: RedisConnection, optional: true }],
    },
  ],
  exports: [RateLimiter],
})
export class RateLimitsModule {}
