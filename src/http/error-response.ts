import { HttpException } from '@nestjs/common';
import type { Response } from 'express';
import { ERROR_CODES, type ErrorCode } from '../errors/error-codes';
import type { ErrorType } from '../errors/error-type';
import { GatewayError } from '../errors/gateway-error';
import { requestPath, routePath } from './request-context';

export const ERROR_STATUS: Readonly<Record<ErrorType, number>> = {
  bad_request: 400,
  unauthorized: 401,
  invalid_payment: 402,
  forbidden: 403,
  conflict: 409,
  not_found: 404,
  model_not_found: 404,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  request_header_fields_too_large: 431,
  rate_limit_exceeded: 429,
  internal_error: 500,
  settlement_failed: 500,
  provider_error: 502,
  upstream_unavailable: 503,
  service_unavailable: 503,
};

/**
 * Framework statuses we may meet, by the code they become: the gateway's own code where the failure
 * is one it names itself, else a generic `http.` one. Anything else 4xx is a bad request.
 */
const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  401: 'http.unauthorized',
  403: 'http.forbidden',
  408: 'request.timeout',
  413: 'request.body_too_large',
  415: 'request.unsupported_content_type',
  429: 'rate_limit.exceeded',
  503: 'http.service_unavailable',
};

export const INTERNAL_ERROR_MESSAGE = 'internal error';

export function routeNotFound(method: string, path: string): GatewayError {
  return new GatewayError('route.not_found', `route not found: ${method} ${path.slice(0, 200)}`);
}

/**
 * Any thrown value as a GatewayError. Framework exceptions keep their status family; their
 * messages are kept only for 4xx (client-caused, no internals). Returns null for a value that is
 * not a known error shape, which the caller reports as internal.
 */
export function asGatewayError(exception: unknown, method: string, path: string): GatewayError | null {
  if (exception instanceof GatewayError) return exception;
  if (!(exception instanceof HttpException)) return null;
  const status = exception.getStatus();
  if (status === 404) return routeNotFound(method, path);
  if (status >= 500 && status !== 503) return null;
  return new GatewayError(CODE_BY_STATUS[status] ?? 'http.bad_request', httpExceptionMessage(exception));
}

function httpExceptionMessage(exception: HttpException): string {
  const body = exception.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/**
 * The envelope of spec 2.12 with `code` and `param` beside `type` and `message`, as OpenAI's
 * envelope has them (docs/decisions.md, "Stable error codes"): `param` names the request field at
 * fault, or is null.
 */
export function errorBody(error: GatewayError): { error: { type: ErrorType; message: string; code: ErrorCode; param: string | null } } | { error: string } {
  const entry = ERROR_CODES[error.code];
  if ('staticBody' in entry) return { error: entry.staticBody };
  return { error: { type: error.type, message: error.message, code: error.code, param: error.param, ...error.details } };
}

/**
 * Routes of the Anthropic Messages surface: their errors keep the envelope and add Anthropic's
 * top-level `"type": "error"`, so its SDK raises its typed errors with the gateway's message, and a
 * stream's failure is Anthropic's `error` event (docs/decisions.md, "The Anthropic Messages codec").
 */
const ANTHROPIC_ROUTES: ReadonlySet<string> = new Set(['/v1/messages', '/v1/messages/count_tokens']);

function anthropicRoute(res: Response): boolean {
  return res.req !== undefined && ANTHROPIC_ROUTES.has(routePath(requestPath(res.req)));
}

/** The error's body as the route's wire format has it. */
function routeErrorBody(res: Response, error: GatewayError): object {
  const body = errorBody(error);
  return anthropicRoute(res) && typeof body.error === 'object' ? { type: 'error', ...body } : body;
}

/** `receiptPath`: the receipt of a payment the request had accepted, named on whatever error ends it (a 408, a 503), so the payer can see what became of it. */
export function sendError(res: Response, error: GatewayError, receiptPath: string | null = null): void {
  const status = ERROR_STATUS[error.type];
  if (receiptPath !== null) res.setHeader('X-Gw-Receipt', receiptPath);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
  if (status === 413) res.setHeader('Connection', 'close');
  res.status(status).json(routeErrorBody(res, error));
}

/**
 * Answers a request with `error` whatever state its response is in: the envelope when nothing was
 * sent yet; on a Server-Sent Events stream already under way, a final `data:` event carrying the
 * envelope (the OpenAI SDK raises on a chunk with an `error` member) and no `[DONE]`, or on the
 * Anthropic surface an `error` event; any other
 * response already under way is cut, so the client sees a failure rather than a truncated body.
 */
export function failResponse(res: Response, error: GatewayError, receiptPath: string | null = null): void {
  if (!res.headersSent) {
    sendError(res, error, receiptPath);
  } else if (res.writableEnded) {
    return;
  } else if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) {
    const body = JSON.stringify(routeErrorBody(res, error));
    res.end(anthropicRoute(res) ? `event: error\ndata: ${body}\n\n` : `data: ${body}\n\n`);
  } else {
    res.destroy();
  }
}
