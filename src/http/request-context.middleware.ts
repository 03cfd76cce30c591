import { randomUUID } from 'node:crypto';
import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { GatewayConfig } from '../config/gateway-config';
import { RootLogger } from '../logging/app-logger';
import { requestLogContext, type RequestLogBindings } from '../logging/request-log-context';
import { socketClient } from './connection-gate';
import { ClientDisconnected, requestPath, RequestContext } from './request-context';
import { securityHeaders } from './security-headers';

export const REQUEST_ID_HEADER = 'X-Gw-Request-Id';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * First of the edge: the request id and security headers (set now, so every later answer,
 * errors included, carries them), the request's context with its cancellation signal, and the
 * access log: the rest of the request runs with its ids bound for every log line, and one line
 * is written when the response closes.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  private readonly headers: ReadonlyArray<readonly [string, string]>;
  private readonly log: Logger;

  constructor(config: GatewayConfig, root: RootLogger) {
    this.headers = securityHeaders(config.env);
    this.log = root.pino;
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const started = performance.now();
    const context = new RequestContext(randomUUID(), socketClient(req.socket));
    req.gw = context;
    res.setHeader(REQUEST_ID_HEADER, context.id);
    for (const [name, value] of this.headers) res.setHeader(name, value);
    const clientId = req.headers['x-request-id'];
    const bindings: RequestLogBindings = typeof clientId === 'string' && CLIENT_REQUEST_ID.test(clientId) ? { request_id: context.id, client_request_id: clientId } : { request_id: context.id };
    res.once('close', () => {
      if (!res.writableFinished) context.abort(new ClientDisconnected());
      this.logAccess(req, res, bindings, started);
    });
    requestLogContext.run(bindings, next);
  }

  private logAccess(req: Request, res: Response, bindings: RequestLogBindings, started: number): void {
    const line = { ...bindings, req: { method: req.method, url: requestPath(req), peer: req.gw.clientAddress }, res: { status: res.statusCode }, duration_ms: Math.round(performance.now() - started) };
    if (!res.writableFinished) this.log.warn(line, 'request aborted');
    else if (res.statusCode >= 500) this.log.error(line, 'request errored');
    else this.log.info(line, 'request completed');
  }
}
