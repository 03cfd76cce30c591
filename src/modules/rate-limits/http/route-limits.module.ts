import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { RateLimitMetrics } from '../application/rate-limit-metrics';
import { WINDOW_MS } from '../application/rate-limiter';
import { RateLimitStore } from '../ports/rate-limit-store';
import { RateLimitsModule } from '../rate-limits.module';
import { RateLimitThrottlerStorage } from './rate-limit-throttler-storage';
import { RouteRateLimitGuard } from './route-rate-limit.guard';

/**
 * Route-level limits (`@RouteRateLimit`) through @nestjs/throttler on the gateway's rate-limit
 * store. The default throttler is only a fallback: every limited route names its own limit.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [RateLimitsModule],
      inject: [RateLimitStore, RateLimitMetrics],
      useFactory: (store: RateLimitStore, metrics: RateLimitMetrics) => ({ throttlers: [{ limit: 60, ttl: WINDOW_MS }], storage: new RateLimitThrottlerStorage(store, metrics) }),
    }),
  ],
  providers: [RouteRateLimitGuard],
  exports: [ThrottlerModule, RouteRateLimitGuard],
})
export class RouteLimitsModule {}
