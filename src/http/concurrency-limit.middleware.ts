import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { GatewayConfig } from '../config/gateway-config';
import { GatewayError } from '../errors/gateway-error';
import { InFlightRequests } from '../core/in-flight-requests';
import { HttpMetrics } from './http-metrics';
import { isOpsPath } from './ops-paths';
import { requestPath } from './request-context';

/**
 * Every request is tracked from its arrival, so shutdown waits for it (a body still arriving
 * included); `Connection: close` once the gateway drains.
 */
@Injectable()
export class InFlightTrackingMiddleware implements NestMiddleware {
  constructor(private readonly inFlight: InFlightRequests) {}

  use(_req: Request, res: Response, next: NextFunction): void {
    if (this.inFlight.draining) res.setHeader('Connection', 'close');
    this.inFlight.track(res);
    next();
  }
}

/**
 * GW_MAX_CONCURRENT_REQUESTS: past the cap a request is refused at once with 503 rather than
 * queued without bound. The slot is taken once the body is in (a client that sends it slowly holds
 * none: docs/decisions.md, "Slow clients hold nothing"). Operator endpoints are exempt so health and
 * metrics stay readable under load.
 */
@Injectable()
export class ConcurrencyLimitMiddleware implements NestMiddleware {
  private readonly limit: number;

  constructor(
    config: GatewayConfig,
    private readonly inFlight: InFlightRequests,
    private readonly metrics: HttpMetrics,
  ) {
    this.limit = config.http.maxConcurrentRequests;
  }

  use(req: Request, res: Response, next: NextFunction): void {
    if (!isOpsPath(requestPath(req)) && !this.inFlight.occupy(res, this.limit)) {
      this.metrics.rejected('concurrency_limit');
      res.setHeader('Retry-After', '1');
      return next(new GatewayError('server.overloaded', 'too many concurrent requests; retry shortly'));
    }
    next();
  }
}
