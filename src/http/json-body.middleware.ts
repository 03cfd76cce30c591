import { Injectable, type NestMiddleware } from '@nestjs/common';
import { parse as parseContentType } from 'content-type';
import type { NextFunction, Request, Response } from 'express';
import typeis from 'type-is';
import { GatewayConfig } from '../config/gateway-config';
import { fieldError, GatewayError } from '../errors/gateway-error';
import { clientNetwork } from '../modules/rate-limits/domain/client-network';
import { RouteTable, type BodyBound } from './body-limits';
import { routeNotFound } from './error-response';
import { sendContinue } from './expect-continue';
import { HttpMetrics, type RejectionReason } from './http-metrics';
import { JsonBodyScanner, MAX_BODY_NESTING, type ScanRefusal } from './json-body-scanner';
import { requestPath } from './request-context';

const JSON_TYPES = ['application/json', 'application/*+json'];
const UTF8 = /^utf-?8$/i;
/** A JSON body the API takes is an object or an array (after any leading white space). */
const CONTAINER_START = /^[\s]*[[{]/;

/**
 * Bytes of request bodies being read, taken as they arrive, never by what a Content-Length
 * declares (docs/decisions.md, "Slow clients hold nothing"): at most GW_MAX_BODY_BYTES_IN_FLIGHT
 * of all requests of this process together, and at most GW_MAX_BODY_BYTES_IN_FLIGHT_PER_CLIENT of
 * one client network's (0: no share), so one client cannot take the whole bound from the others.
 */
@Injectable()
export class BodyBytesInFlight {
  private used = 0;
  private readonly byClient = new Map<string, number>();
  private readonly max: number;
  private readonly maxPerClient: number;

  constructor(config: GatewayConfig) {
    this.max = config.http.maxBodyBytesInFlight;
    this.maxPerClient = config.http.maxBodyBytesInFlightPerClient;
  }

  /** Takes `bytes` for `client`'s body: null when taken, else the bound that refused them. */
  take(client: string, bytes: number): BodyBytesRefusal | null {
    const held = this.byClient.get(client) ?? 0;
    if (this.maxPerClient > 0 && held + bytes > this.maxPerClient) return 'client_body_bytes';
    if (this.used + bytes > this.max) return 'body_bytes_in_flight';
    this.used += bytes;
    this.byClient.set(client, held + bytes);
    return null;
  }

  release(client: string, bytes: number): void {
    if (bytes === 0) return;
    this.used -= bytes;
    const left = (this.byClient.get(client) ?? 0) - bytes;
    if (left > 0) this.byClient.set(client, left);
    else this.byClient.delete(client);
  }
}

type BodyBytesRefusal = Extract<RejectionReason, 'body_bytes_in_flight' | 'client_body_bytes'>;

/**
 * The route's body, read as cheaply as it can be refused (docs/decisions.md, "Bodies at the edge"):
 * an unmatched method and path is 404 and a body on a route that takes none 413, both unread; a
 * Content-Length over the route's limit 413, a Content-Encoding (or a Transfer-Encoding other
 * than chunked) 415, a media type other than JSON in UTF-8 415, all before a byte is read. Then the body is read within GW_BODY_READ_TIMEOUT_SECS
 * (408), under the bounds on bytes in flight, shared and per client network (503), its nesting
 * and its values counted as it arrives (400 past 64 levels, 413 past the route's values), and
 * parsed once complete; the exact bytes stay on `req.rawBody`. Every refusal closes the
 * connection, so an unread body costs nothing more. Hand-written rather than body-parser, which
 * neither counts while reading nor bounds bytes in flight.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly timeoutMs: number;

  constructor(
    private readonly routes: RouteTable,
    private readonly inFlight: BodyBytesInFlight,
    private readonly metrics: HttpMetrics,
    config: GatewayConfig,
  ) {
    this.timeoutMs = config.http.bodyReadTimeoutMs;
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const path = requestPath(req);
    const limit = this.routes.bodyLimit(req.method, path);
    const refuse = (error: GatewayError): void => {
      res.setHeader('Connection', 'close');
      next(error);
    };
    if (limit === null) return refuse(routeNotFound(req.method, path));
    if (!hasBody(req)) return next();
    const declared = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
    const refusal = headerRefusal(req, path, limit.bytes, declared);
    if (refusal) return refuse(refusal);
    sendContinue(req, res);
    this.read(req, res, limit, next);
  }

  private read(req: Request, res: Response, limit: BodyBound, next: NextFunction): void {
    const client = clientNetwork(req.gw.clientAddress);
    const chunks: Buffer[] = [];
    const scanner = new JsonBodyScanner(limit.values);
    let received = 0;
    let done = false;
    const finish = (error: GatewayError | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
      this.inFlight.release(client, received);
      if (error) {
        res.setHeader('Connection', 'close');
        return next(error);
      }
      // A body that finished arriving after its client left must not reach a handler.
      if (req.gw.signal.aborted) return next(req.gw.signal.reason);
      const body = parseJson(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
      if (body instanceof GatewayError) return next(body);
      req.rawBody = body.raw;
      req.body = body.value;
      next();
    };
    const onData = (chunk: Buffer): void => {
      if (received + chunk.length > limit.bytes) return finish(tooLarge(limit.bytes));
      const refused = this.inFlight.take(client, chunk.length);
      if (refused !== null) return finish(this.overloaded(res, refused));
      received += chunk.length;
      const verdict = scanner.feed(chunk);
      if (verdict !== null) return finish(scanRefusal(verdict, limit.values));
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(null);
    const onAbort = (): void => finish(new GatewayError('request.body_aborted', 'request body aborted'));
    const timer = setTimeout(() => finish(new GatewayError('request.receive_timeout', `request body not received within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onAbort);
    req.once('close', onAbort);
  }

  private overloaded(res: Response, reason: BodyBytesRefusal): GatewayError {
    this.metrics.rejected(reason);
    res.setHeader('Retry-After', '1');
    const whose = reason === 'client_body_bytes' ? ' from this client' : '';
    return new GatewayError('server.overloaded', `too many request bodies being read${whose}; retry shortly`);
  }
}

/** A body is present when chunked or with a non-zero length. */
export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** What the headers alone refuse, in this order: a route without a body, the declared length, the encodings, the media type, the charset. */
function headerRefusal(req: Request, path: string, limit: number, declared: number | null): GatewayError | null {
  if (limit === 0) return new GatewayError('request.body_too_large', `${req.method} ${path.slice(0, 200)} takes no request body`);
  if (declared !== null && declared > limit) return tooLarge(limit);
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity')
    return new GatewayError('request.unsupported_encoding', 'request bodies must not be compressed: Content-Encoding must be identity or absent');
  // Node decodes only `chunked` and hands on the bytes of any coding named before it (`gzip, chunked`)
  // as they came: the edge would read as the body what a proxy that decodes them reads otherwise.
  const transfer = req.headers['transfer-encoding'];
  if (transfer !== undefined && transfer.trim().toLowerCase() !== 'chunked')
    return new GatewayError('request.unsupported_encoding', 'request bodies must not be compressed: Transfer-Encoding must be chunked or absent');
  if (!typeis(req, JSON_TYPES)) return new GatewayError('request.unsupported_content_type', 'Content-Type must be application/json');
  const charset = parseContentType(req.headers['content-type'] ?? '').parameters.charset;
  if (charset !== undefined && !UTF8.test(charset)) return new GatewayError('request.unsupported_charset', 'JSON bodies must be UTF-8');
  return null;
}

function scanRefusal(refusal: ScanRefusal, maxValues: number): GatewayError {
  if (refusal.bound === 'values') return new GatewayError('request.too_many_values', `request body holds more than ${maxValues} JSON values`);
  return fieldError('request.nesting_too_deep', refusal.path, `${refusal.path} is nested too deeply: objects and arrays may nest at most ${MAX_BODY_NESTING} levels`);
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('request.body_too_large', `request body exceeds ${limit} bytes`);
}

function parseJson(raw: Buffer): { raw: Buffer; value: unknown } | GatewayError {
  const text = raw.toString('utf8');
  if (!CONTAINER_START.test(text)) return new GatewayError('request.malformed_json', 'malformed JSON body');
  try {
    return { raw, value: JSON.parse(text) as unknown };
  } catch {
    return new GatewayError('request.malformed_json', 'malformed JSON body');
  }
}
