import { Module, RequestMethod, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { BodyLimits } from './body-limits';
import { ConcurrencyLimitMiddleware } from './concurrency-limit.middleware';
import { CorsMiddleware } from './cors.middleware';
import { dtoValidationPipe } from './dto-validation.pipe';
import { EdgeChainMiddleware } from './edge-chain.middleware';
import { HttpMetrics } from './http-metrics';
import { HttpMetricsMiddleware } from './http-metrics.middleware';
import { JsonBodyMiddleware } from './json-body.middleware';
import { RequestContextMiddleware } from './request-context.middleware';
import { RequestTimeoutMiddleware } from './request-timeout.middleware';

/**
 * The edge every request crosses, in this order, after the access logger: context (request id,
 * security headers, cancellation), metrics, CORS, concurrency cap, timeout, JSON body. Being Nest
 * middleware on every path, it also runs for unknown routes, so their 404 gets the same headers.
 * Bodies typed as DTO classes are validated by one global pipe.
 */
@Module({})
export class HttpEdgeModule implements NestModule {
  static forRoot(bodyLimits: BodyLimits): DynamicModule {
    return {
      module: HttpEdgeModule,
      providers: [
        { provide: BodyLimits, useValue: bodyLimits },
        HttpMetrics,
        RequestContextMiddleware,
        HttpMetricsMiddleware,
        CorsMiddleware,
        ConcurrencyLimitMiddleware,
        RequestTimeoutMiddleware,
        JsonBodyMiddleware,
        { provide: APP_PIPE, useFactory: dtoValidationPipe },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(EdgeChainMiddleware).forRoutes({ path: '*', method: RequestMethod.ALL });
  }
}
