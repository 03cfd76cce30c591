import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isJsonObject } from '../../../../libs/json/json-object';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import { A2ATasks, type A2ACaller } from '../application/a2a-tasks';
import { A2A_ERRORS, A2AError } from '../domain/a2a-errors';
import { X402_EXTENSION_URI } from '../domain/a2a-wire';
import { ApiBody } from '@nestjs/swagger';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { asSchema } from '../../../http/openapi/wire-schemas';
import { A2A_REQUEST, A2A_RESPONSE } from './a2a-openapi';
import { AGENT_BODY_LIMIT, BodyLimit } from '../../../http/body-limits';

type RpcId = string | number | null;

const PUSH_METHODS = new Set(['tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/delete']);
const UNSUPPORTED = new Set(['message/stream', 'tasks/resubscribe']);

/**
 * POST /a2a (spec 4.8): JSON-RPC 2.0, one request per body. A body that is not a JSON-RPC request
 * (a batch, no id) is the HTTP layer's 400 with no JSON-RPC envelope; everything else answers 200
 * with a result or an error, except a tasks/get past its limit (HTTP 429 with Retry-After).
 * Hand-written rather than @a2a-js/sdk's server: its request handler owns the task lifecycle, and
 * here payment decides every transition (docs/decisions.md, "A2A").
 */
@Controller()
export class A2AController {
  constructor(
    private readonly tasks: A2ATasks,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(A2AController.name);
  }

  @Post('a2a')
  @BodyLimit(AGENT_BODY_LIMIT)
  @HttpCode(200)
  @ApiBody({ schema: asSchema(A2A_REQUEST) })
  @ApiAnswer(200, 'a JSON-RPC result (the task) or error; payment errors are JSON-RPC errors too', A2A_RESPONSE, {
    headers: { 'X-A2A-Extensions': { description: 'echoes the x402 extension when the client activated it', schema: { type: 'string' } } },
  })
  @ApiErrors('rate_limit.exceeded')
  async rpc(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<unknown> {
    const extensions = req.headers['x-a2a-extensions'];
    if (typeof extensions === 'string' && extensions.includes(X402_EXTENSION_URI)) res.setHeader('X-A2A-Extensions', X402_EXTENSION_URI);
    const body: unknown = req.body;
    if (Array.isArray(body)) throw new GatewayError('request.invalid_body', 'JSON-RPC batches are not supported; send one request per call');
    if (!isJsonObject(body) || !isRpcId(body.id)) throw new GatewayError('request.invalid_body', 'a JSON-RPC request needs an id (a string of at most 256 characters, a number or null)');
    const id = body.id;
    if (body.jsonrpc !== '2.0') return failure(id, A2A_ERRORS.invalidRequest, 'jsonrpc must be "2.0"');
    if (typeof body.method !== 'string') return failure(id, A2A_ERRORS.invalidRequest, 'method must be a string');
    const caller: A2ACaller = {
      requestId: req.gw.id,
      clientAddress: req.gw.clientAddress,
      signal: req.gw.signal,
      timing: req.gw.timing,
      suspendTimeout: () => req.gw.suspendTimeout(),
      noteReceipt: (receiptPath) => req.gw.noteReceipt(receiptPath),
      bodyBytes: req.rawBody?.length ?? 0,
    };
    try {
      return { jsonrpc: '2.0', id, result: await this.call(body.method, body.params, caller) };
    } catch (err) {
      if (err instanceof A2AError) return failure(id, err.code, err.message, err.data);
      // A limit's refusal is HTTP's own 429 with its headers (spec 7: tasks/get may answer 429).
      if (err instanceof GatewayError && err.type === 'rate_limit_exceeded') throw err;
      if (err instanceof GatewayError) return failure(id, A2A_ERRORS.internal, err.message, { reason: err.code, retryable: true });
      this.logger.error({ err, request_id: caller.requestId }, 'a2a call failed');
      return failure(id, A2A_ERRORS.internal, 'internal error', { retryable: true });
    }
  }

  private call(method: string, params: unknown, caller: A2ACaller): Promise<unknown> {
    if (method === 'message/send') return this.tasks.send(params, caller);
    if (method === 'tasks/get') return this.tasks.get(params, caller);
    if (method === 'tasks/cancel') return this.tasks.cancel(params);
    if (PUSH_METHODS.has(method)) throw new A2AError(A2A_ERRORS.pushNotSupported, 'push notifications are not supported');
    if (UNSUPPORTED.has(method)) throw new A2AError(A2A_ERRORS.methodNotFound, `${method} is not supported: this agent does not stream`);
    throw new A2AError(A2A_ERRORS.methodNotFound, `method not found: ${method.slice(0, 100)}`);
  }
}

/** Ids are echoed back, so a string id is bounded. */
function isRpcId(id: unknown): id is RpcId {
  return (typeof id === 'string' && id.length <= 256) || typeof id === 'number' || id === null;
}

function failure(id: RpcId, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}
