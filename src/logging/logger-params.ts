import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { GatewayConfig } from '../config/gateway-config';

/**
 * Defence in depth: serializers below never emit headers, but should a header or a config object
 * reach a log line by another path, these are censored.
 */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["payment-signature"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["payment-signature"]',
  '*.apiKey',
  '*.adminToken',
  '*.feePayerKeys',
  '*.secretKey',
];

const CLIENT_REQUEST_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The client's X-Request-Id when it is well-formed (at most 128 of [A-Za-z0-9_-]); anything else is not logged. */
function validClientRequestId(req: IncomingMessage): string | undefined {
  const value = req.headers['x-request-id'];
  return typeof value === 'string' && CLIENT_REQUEST_ID.test(value) ? value : undefined;
}

/**
 * Structured JSON logs (pino) with one access line per request. Every line of a request carries
 * `request_id` (the X-Gw-Request-Id) and the client's own `client_request_id` when it sent a valid one.
 */
export function loggerParams(config: GatewayConfig, destination?: DestinationStream): Params {
  const options = {
    level: config.logLevel,
    genReqId: () => randomUUID(),
    // Handler lines carry request_id alone; the access line adds the request, the response and client_request_id.
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'request_id', responseTime: 'duration_ms' },
    customProps: (req: IncomingMessage) => {
      const clientRequestId = validClientRequestId(req);
      return clientRequestId ? { client_request_id: clientRequestId } : {};
    },
    serializers: {
      req: (req: { method: string; url: string; remoteAddress?: string }) => ({ method: req.method, url: req.url, peer: req.remoteAddress }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  } as const;
  return { pinoHttp: destination ? [options, destination] : options };
}
