import { Global, Module } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { RateLimitsModule } from '../modules/rate-limits/rate-limits.module';
import { AdminTokenThrottle } from './admin-token';
import { RouteTable } from './body-limits';
import { ConnectionGate } from './connection-gate';
import { ConnectionTurns } from './connection-turns';
import { ConcurrencyLimitMiddleware, InFlightTrackingMiddleware } from './concurrency-limit.middleware';
import { CorsMiddleware } from './cors.middleware';
import { dtoValidationPipe } from './dto-validation.pipe';
import { EdgeChainMiddleware } from './edge-chain.middleware';
import { HttpMetrics } from './http-metrics';
import { HttpMetricsMiddleware } from './http-metrics.middleware';
import { BodyBytesInFlight, JsonBodyMiddleware } from './json-body.middleware';
import { RequestContextMiddleware } from './request-context.middleware';
import { RequestTimeoutMiddleware } from './request-timeout.middleware';

/**
 * The edge every request crosses, in this order, after the access logger: context (request id,
 * security headers, cancellation), metrics, CORS, in-flight tracking, the route's JSON body,
 * concurrency cap, timeout (EdgeChainMiddleware, mounted by gateway.ts in front of every route, so
 * unknown routes' 404 gets the same headers). Bodies typed as DTO classes are validated by one global pipe.
 * Global, for the admin token's throttle that every admin guard and /health share.
 */
@Global()
@Module({
  imports: [RateLimitsModule],
  exports: [AdminTokenThrottle],
  providers: [
    AdminTokenThrottle,
    RouteTable,
    ConnectionGate,
    ConnectionTurns,
    BodyBytesInFlight,
    InFlightTrackingMiddleware,
    HttpMetrics,
    RequestContextMiddleware,
    HttpMetricsMiddleware,
    CorsMiddleware,
    ConcurrencyLimitMiddleware,
    RequestTimeoutMiddleware,
    JsonBodyMiddleware,
    EdgeChainMiddleware,
    { provide: APP_PIPE, useFactory: dtoValidationPipe },
  ],
})
export class HttpEdgeModule {}
