import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { GatewayConfig } from '../config/gateway-config';
import { ClientDisconnected, RequestContext } from './request-context';
import { securityHeaders } from './security-headers';

export const REQUEST_ID_HEADER = 'X-Gw-Request-Id';

/** Peer address without the IPv4-mapped prefix, so 127.0.0.1 is one client whichever socket family. */
export function peerAddress(req: Request): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * First of the edge: the request id and security headers (set now, so every later answer,
 * errors included, carries them) and the request's context with its cancellation signal.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  private readonly headers: ReadonlyArray<readonly [string, string]>;

  constructor(config: GatewayConfig) {
    this.headers = securityHeaders(config.env);
  }

  use(req: Request, res: Response, next: NextFunction): void {
    // pino-http, which runs before the edge, assigned the UUID so log lines and header agree.
    const context = new RequestContext(String(req.id), peerAddress(req));
    req.gw = context;
    res.setHeader(REQUEST_ID_HEADER, context.id);
    for (const [name, value] of this.headers) res.setHeader(name, value);
    res.once('close', () => {
      if (!res.writableFinished) context.abort(new ClientDisconnected());
    });
    next();
  }
}
