import { Injectable, type NestMiddleware } from '@nestjs/common';
import { json } from 'body-parser';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import typeis from 'type-is';
import { GatewayError } from '../errors/gateway-error';
import { BodyLimits } from './body-limits';
import { requestPath } from './request-context';

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Every body this API takes is JSON (spec section 4). Reads it with body-parser under the route's
 * size limit, keeps the exact bytes on `req.rawBody`, and turns body-parser's failures into the
 * envelope. A body of another media type is refused with 415 without being read.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly parsers = new Map<number, RequestHandler>();

  constructor(private readonly limits: BodyLimits) {}

  use(req: Request, res: Response, next: NextFunction): void {
    if (!hasBody(req)) return next();
    if (!typeis(req, JSON_TYPES)) {
      res.setHeader('Connection', 'close');
      return next(new GatewayError('request.unsupported_content_type', 'Content-Type must be application/json'));
    }
    const limit = this.limits.limitFor(requestPath(req));
    this.parserFor(limit)(req, res, (err?: unknown) => {
      // A body that finished arriving after the request timed out or its client left must not reach a handler.
      if (req.gw.signal.aborted) return next(req.gw.signal.reason);
      next(err === undefined ? undefined : bodyError(err, limit));
    });
  }

  private parserFor(limit: number): RequestHandler {
    let parser = this.parsers.get(limit);
    if (!parser) {
      parser = json({
        limit,
        type: () => true,
        verify: (req, _res, buf) => {
          (req as Request).rawBody = buf;
        },
      }) as RequestHandler;
      this.parsers.set(limit, parser);
    }
    return parser;
  }
}

/** A body is present when chunked or with a non-zero length (type-is counts `Content-Length: 0`). */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function bodyError(err: unknown, limit: number): GatewayError {
  switch ((err as { type?: string }).type) {
    case 'entity.too.large':
      return new GatewayError('request.body_too_large', `request body exceeds ${limit} bytes`);
    case 'entity.parse.failed':
      return new GatewayError('request.malformed_json', 'malformed JSON body');
    case 'charset.unsupported':
      return new GatewayError('request.unsupported_charset', 'JSON bodies must be UTF-8');
    case 'encoding.unsupported':
      return new GatewayError('request.unsupported_encoding', 'unsupported Content-Encoding');
    case 'request.aborted':
      return new GatewayError('request.body_aborted', 'request body aborted');
    case 'request.size.invalid':
      return new GatewayError('request.body_length_mismatch', 'request body does not match its Content-Length');
    default:
      return new GatewayError('request.unreadable_body', 'unreadable request body');
  }
}
