import { Injectable, type NestMiddleware } from '@nestjs/common';
import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { GatewayConfig } from '../config/gateway-config';
import { GatewayError } from '../errors/gateway-error';
import { hasBody } from './json-body.middleware';
import { REQUEST_ID_HEADER } from './request-context.middleware';

const ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const ALLOWED_HEADERS = ['Content-Type', 'Authorization', 'PAYMENT-SIGNATURE', 'X-Request-Id', 'X-Session-Id', 'X-Gw-Debug'];

/** Response headers a browser client must be able to read (payment, receipt, limits, diagnostics). */
const EXPOSED_HEADERS = [
  'PAYMENT-REQUIRED',
  'PAYMENT-RESPONSE',
  'X-Gw-Receipt',
  REQUEST_ID_HEADER,
  'X-Gw-Session',
  'X-Gw-Fallback',
  'X-Gw-Model',
  'X-Gw-Profile',
  'X-Gw-Tier',
  'X-Gw-Score',
  'X-Gw-Provider',
  'X-Gw-Cache',
  'X-Gw-Payment-Status',
  'X-Gw-Token-Estimate-In',
  'X-Gw-Token-Estimate-Out',
  'X-Gw-Latency-Ms',
  'X-Gw-Params-Dropped',
  'X-Gw-Params-Rewritten',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

/**
 * Spec 5.8. Requests from an origin outside the list get no CORS headers, so browsers cannot read
 * the answer; a preflight from such an origin is refused outright with 403 in the envelope. An
 * OPTIONS with a body is no preflight a browser sends: it goes on to the body step, which refuses
 * it unread (413, as on any route that takes no body) and closes the connection; answered here, the
 * body would be left on a kept-alive connection for Node to read and discard, unbounded and untimed.
 */
@Injectable()
export class CorsMiddleware implements NestMiddleware {
  private readonly allowed: ReadonlySet<string>;
  private readonly handler: RequestHandler;

  constructor(config: GatewayConfig) {
    this.allowed = new Set(config.http.corsOrigins);
    this.handler = cors({
      origin: (origin, callback) => callback(null, origin !== undefined && this.allowed.has(origin)),
      methods: ALLOWED_METHODS,
      allowedHeaders: ALLOWED_HEADERS,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    if (req.method === 'OPTIONS' && hasBody(req)) return next();
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (preflight && (origin === undefined || !this.allowed.has(origin))) {
      return next(new GatewayError('cors.origin_not_allowed', 'CORS origin not allowed'));
    }
    this.handler(req, res, next);
  }
}
