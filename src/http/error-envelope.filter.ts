import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppLogger } from '../logging/app-logger';
import { GatewayError } from '../errors/gateway-error';
import { asGatewayError, failResponse, INTERNAL_ERROR_MESSAGE } from './error-response';
import { requestPath } from './request-context';
import { VerbatimResponse } from './verbatim-response';

/**
 * The one place errors become responses: every error, framework ones included, leaves as
 * `{error: {type, message, code}}`. Unknown errors are logged with their stack and answered with a
 * generic 500; nothing internal reaches the client.
 */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  constructor(private readonly logger: AppLogger) {
    logger.setContext(ErrorEnvelopeFilter.name);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    if (req.gw?.signal.aborted && (res.writableEnded || res.destroyed)) {
      // The request already ended (timed out and answered, or its client left): this is its abandoned work failing late.
      this.logger.debug({ err: exception, ...req.gw.logIds }, 'error after the request ended');
      return;
    }
    if (exception instanceof VerbatimResponse && !res.headersSent) {
      for (const [name, value] of Object.entries(exception.headers)) res.setHeader(name, value);
      res.status(exception.status).json(exception.body);
      return;
    }
    let error = asGatewayError(exception, req.method, requestPath(req));
    if (!error) {
      this.logger.error({ err: exception, ...req.gw?.logIds }, 'unhandled error');
      error = new GatewayError('server.internal_error', INTERNAL_ERROR_MESSAGE);
    }
    failResponse(res, error, req.gw?.receiptPath ?? null);
  }
}
