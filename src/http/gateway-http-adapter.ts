import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { GatewayEnv } from '../config/gateway-config';
import { GatewayError } from '../errors/gateway-error';
import { ConnectionGate } from './connection-gate';
import { ERROR_STATUS, errorBody, routeNotFound } from './error-response';
import { deferContinue } from './expect-continue';
import { REQUEST_ID_HEADER } from './request-context.middleware';
import { securityHeaders } from './security-headers';

/** Payment headers may reach 50 KB (spec 5.1); Node's default of 16 KB would answer 431 first. */
export const MAX_HEADER_BYTES = 64 * 1024;
/** How often Node looks for a request head past its bound (its default, 30 s, would let a 10 s bound run to 40). */
const HEAD_CHECK_INTERVAL_MS = 1000;

/**
 * Nest's Express adapter with the server options Nest does not expose: the larger header limit,
 * errors raised by Node's HTTP parser (before Express sees the request) answered in the envelope
 * with the security headers and a request id, instead of Node's bare status line, a request
 * whose target is not a path answered 404 and closed before Express,
 * `Expect: 100-continue` left for the edge to answer once it has judged the headers, and a request
 * head bounded in time as its body is: within `headTimeoutMs` (GW_BODY_READ_TIMEOUT_SECS) of the
 * connection's first byte or the previous request, else 408 and closed (docs/decisions.md, "Slow
 * clients hold nothing"). Node's own bound is 60 s: a connection that sent nothing, or trickled a
 * header line now and then, was held for a minute or more.
 */
export class GatewayHttpAdapter extends ExpressAdapter {
  constructor(
    private readonly env: GatewayEnv,
    private readonly headTimeoutMs: number,
  ) {
    super();
    this.getInstance().disable('x-powered-by');
    this.getInstance().set('etag', false);
    this.getInstance().set('trust proxy', false);
  }

  override initHttpServer(): void {
    const app = this.getInstance<(req: IncomingMessage, res: ServerResponse) => void>();
    const server = createServer(
      { maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: this.headTimeoutMs, connectionsCheckingInterval: Math.min(HEAD_CHECK_INTERVAL_MS, this.headTimeoutMs) },
      (req, res) => {
        if (req.url?.startsWith('/')) return app(req, res);
        // `*` (as in `OPTIONS *`): the edge's middleware is mounted on paths, which begin with `/`, so
        // such a request met none of it and was answered by the router's 404 with its body unread on
        // a kept-alive connection, for Node to drain past every bound of the edge (the second
        // adversarial pass over the edge). An absolute URL, which the edge refused 404, is alike.
        this.answerInEnvelope(routeNotFound(req.method ?? '', req.url ?? ''), req.socket);
      },
    );
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => this.answerClientError(err, socket));
    deferContinue(server);
    // Node answers an Expect other than 100-continue itself, with a bare 417, unless this is heard.
    server.on('checkExpectation', (req: IncomingMessage) => this.answerInEnvelope(new GatewayError('request.unsupported_expectation', 'the Expect header must be 100-continue or absent'), req.socket));
    this.httpServer = server;
  }

  private answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
    if (err.code === 'ECONNRESET' || !socket.writable || ConnectionGate.closesProxyHeader((err as { rawPacket?: unknown }).rawPacket)) {
      socket.destroy();
      return;
    }
    const error =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new GatewayError('request.headers_too_large', `request headers exceed ${MAX_HEADER_BYTES} bytes`)
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new GatewayError('request.receive_timeout', 'request not received in time')
          : new GatewayError('request.malformed_http', 'malformed HTTP request');
    this.answerInEnvelope(error, socket);
  }

  /** The error written straight to the socket, which then closes: these requests never reach Express. */
  private answerInEnvelope(error: GatewayError, socket: Duplex): void {
    const status = ERROR_STATUS[error.type];
    const body = JSON.stringify(errorBody(error));
    const headers = [
      ['Content-Type', 'application/json; charset=utf-8'],
      ['Content-Length', String(Buffer.byteLength(body))],
      ['Connection', 'close'],
      [REQUEST_ID_HEADER, randomUUID()],
      ...securityHeaders(this.env),
    ];
    const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
  }
}
