import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ConcurrencyLimitMiddleware, InFlightTrackingMiddleware } from './concurrency-limit.middleware';
import { CorsMiddleware } from './cors.middleware';
import { HttpMetricsMiddleware } from './http-metrics.middleware';
import { JsonBodyMiddleware } from './json-body.middleware';
import { RequestContextMiddleware } from './request-context.middleware';
import { RequestTimeoutMiddleware } from './request-timeout.middleware';

/**
 * The edge's middleware run as one, in order, mounted by gateway.ts as one plain Express
 * middleware in front of the routes. Nest wraps each middleware it mounts in its own Express layer
 * and proxy (about 0.2 ms of CPU per request for six, measured here); even one, mounted by Nest,
 * is a catch-all route for every HTTP method whose wildcard match splits and decodes each path
 * (docs/performance.md, "The CPU floor"). The
 * body is read before the concurrency slot and the request timeout are taken, so a client that
 * sends it slowly holds neither (docs/decisions.md, "Slow clients hold nothing").
 */
@Injectable()
export class EdgeChainMiddleware implements NestMiddleware {
  private readonly steps: ReadonlyArray<NestMiddleware<Request, Response>>;

  constructor(
    context: RequestContextMiddleware,
    metrics: HttpMetricsMiddleware,
    cors: CorsMiddleware,
    tracking: InFlightTrackingMiddleware,
    body: JsonBodyMiddleware,
    concurrency: ConcurrencyLimitMiddleware,
    timeout: RequestTimeoutMiddleware,
  ) {
    this.steps = [context, metrics, cors, tracking, body, concurrency, timeout];
  }

  use(req: Request, res: Response, next: NextFunction): void {
    // One callback for the whole chain rather than one per step: each step calls it once, to go on or to fail.
    let index = 0;
    const step = (err?: unknown): void => {
      // Express reads any falsy argument (cors passes null) as "no error".
      if (err || index === this.steps.length) return next(err || undefined);
      this.steps[index++].use(req, res, step);
    };
    step();
  }
}
