import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { StageTiming } from '../core/stage-timing';

/** The ids on a log line about a request. */
interface RequestLogIds {
  request_id: string;
  client_request_id?: string;
}

/** Why a request's work was cancelled when the client went away first. */
export class ClientDisconnected extends Error {
  override name = 'ClientDisconnected';
  constructor() {
    super('client disconnected');
  }
}

/**
 * What the edge knows about one request. `signal` aborts when the request times out or the client
 * disconnects: work behind the request (upstream calls, waits) listens to it.
 */
export class RequestContext {
  readonly #controller = new AbortController();
  #timeoutSuspended = false;
  #receiptPath: string | null = null;
  /** Upstream and payment time, for the overhead metrics. */
  readonly timing = new StageTiming();

  constructor(
    /** Our id, sent back as X-Gw-Request-Id. */
    readonly id: string,
    /** The client's address: the TCP peer, or what a trusted PROXY header said (src/http/connection-gate.ts); X-Forwarded-For is never trusted. */
    readonly clientAddress: string,
    /** The client's own X-Request-Id, when it is a plain token: logged beside ours. */
    readonly clientRequestId?: string,
  ) {}

  /**
   * The ids a line logged about this request carries, as its access line does. Passed, not bound:
   * a per-request AsyncLocalStorage costs every promise of every request a hook (docs/performance.md,
   * "The CPU floor"), for the few lines written about a request.
   */
  get logIds(): RequestLogIds {
    return this.clientRequestId === undefined ? { request_id: this.id } : { request_id: this.id, client_request_id: this.clientRequestId };
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  abort(reason: Error): void {
    this.#controller.abort(reason);
  }

  /** Whether GW_REQUEST_TIMEOUT_SECS no longer applies (the request's payment was broadcast). */
  get timeoutSuspended(): boolean {
    return this.#timeoutSuspended;
  }

  /** From now on the request timeout does not cut this request: it was paid for, and is bounded otherwise. */
  suspendTimeout(): void {
    this.#timeoutSuspended = true;
  }

  /** The receipt of the payment this request accepted, once it did: every error that then ends the request names it. */
  get receiptPath(): string | null {
    return this.#receiptPath;
  }

  noteReceipt(path: string): void {
    this.#receiptPath = path;
  }
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by RequestContextMiddleware, first of the edge. */
    gw: RequestContext;
    /** The exact bytes of a JSON body, for handlers that hash or verify them. */
    rawBody?: Buffer;
  }
}

/** The path without the query string, as the client sent it (a router mounted on a path rewrites `req.url`). */
export function requestPath(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The path as the router matches it: Express routes ignore case and one trailing slash (only one:
 * `/v1/search//` is no route), so limits and payment resources keyed by path must too, or
 * `/V1/SEARCH/` would escape them, and the edge must not take a body for a path Express then 404s.
 */
export function routePath(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/** Injects the RequestContext into a controller method. */
export const ReqContext = createParamDecorator((_data: unknown, host: ExecutionContext): RequestContext => {
  return host.switchToHttp().getRequest<Request>().gw;
});
