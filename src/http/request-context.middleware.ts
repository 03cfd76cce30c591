import { randomUUID } from 'node:crypto';
import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { GatewayConfig } from '../config/gateway-config';
import { AccessLog } from '../logging/access-log';
import { RootLogger } from '../logging/app-logger';
import { socketClient } from './connection-gate';
import { ClientDisconnected, requestPath, RequestContext } from './request-context';
import { securityHeaders } from './security-headers';

export const REQUEST_ID_HEADER = 'X-Gw-Request-Id';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * First of the edge: the request id and security headers (set now, so every later answer,
 * errors included, carries them), the request's context with its cancellation signal and ids
 * (what a line logged about the request carries: `RequestContext.logIds`), and the access log:
 * one line when the response closes.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  private readonly headers: ReadonlyArray<readonly [string, string]>;
  private readonly access: AccessLog;

  constructor(config: GatewayConfig, root: RootLogger) {
    this.headers = securityHeaders(config.env);
    this.access = new AccessLog(root.pino);
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const started = performance.now();
    const clientId = req.headers['x-request-id'];
    const context = new RequestContext(randomUUID(), socketClient(req.socket), typeof clientId === 'string' && CLIENT_REQUEST_ID.test(clientId) ? clientId : undefined);
    req.gw = context;
    res.setHeader(REQUEST_ID_HEADER, context.id);
    for (const [name, value] of this.headers) res.setHeader(name, value);
    res.once('close', () => {
      if (!res.writableFinished) context.abort(new ClientDisconnected());
      this.logAccess(req, res, started);
    });
    next();
  }

  private logAccess(req: Request, res: Response, started: number): void {
    const { id, clientRequestId, clientAddress } = req.gw;
    const entry = { requestId: id, clientRequestId, method: req.method, path: requestPath(req), peer: clientAddress, status: res.statusCode, durationMs: Math.round(performance.now() - started) };
    if (!res.writableFinished) this.access.write('warn', entry, 'request aborted');
    else if (res.statusCode >= 500) this.access.write('error', entry, 'request errored');
    else this.access.write('info', entry, 'request completed');
  }
}
