import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { GatewayConfig } from '../config/gateway-config';
import { GatewayError } from '../errors/gateway-error';
import { failResponse } from './error-response';

/**
 * GW_REQUEST_TIMEOUT_SECS. On expiry the request's signal aborts (cancelling the work behind it),
 * then the client gets 408 in the envelope, or, when a stream has already started, an error event
 * that ends it. A request whose payment was broadcast suspends it (docs/decisions.md: it is
 * bounded by the stream cap and the confirmation window instead). Hand-written: connect-timeout
 * neither cancels work nor knows about streams.
 */
@Injectable()
export class RequestTimeoutMiddleware implements NestMiddleware {
  private readonly timeoutMs: number;

  constructor(config: GatewayConfig) {
    this.timeoutMs = config.http.requestTimeoutMs;
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const timer = setTimeout(() => this.expire(req, res), this.timeoutMs);
    res.once('close', () => clearTimeout(timer));
    next();
  }

  private expire(req: Request, res: Response): void {
    if (req.gw.timeoutSuspended) return;
    const error = new GatewayError('request.timeout', `request exceeded the ${this.timeoutMs / 1000} s timeout`);
    req.gw.abort(error);
    failResponse(res, error, req.gw.receiptPath);
  }
}
