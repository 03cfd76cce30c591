import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ERROR_CODES, type ErrorCode } from '../../../errors/error-codes';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { asSchema, INTEGER, nullable, object, STRING, type JsonSchema } from '../../../http/openapi/wire-schemas';
import { ApiPaid, PAID_ANSWER_HEADERS } from '../../payments/http/paid-route-openapi';
import { ANTHROPIC_COUNT_TOKENS_SCHEMA, ANTHROPIC_REQUEST_SCHEMA, MESSAGES_EXAMPLE } from '../domain/anthropic-request-schema';

/** POST /v1/messages and its count_tokens (spec 4.10), for the OpenAPI document: Anthropic's message and events (anthropic-codec.ts); thinking blocks and pause_turn come from Anthropic models alone. */
const BLOCK: JsonSchema = {
  oneOf: [
    object({ type: { const: 'text' }, text: STRING }),
    object({ type: { const: 'tool_use' }, id: STRING, name: STRING, input: { type: 'object' } }),
    object({ type: { const: 'thinking' }, thinking: STRING, signature: STRING }),
    object({ type: { const: 'redacted_thinking' }, data: STRING }),
  ],
};

const MESSAGE: JsonSchema = object({
  id: STRING,
  type: { const: 'message' },
  role: { const: 'assistant' },
  model: STRING,
  content: { type: 'array', items: BLOCK },
  stop_reason: nullable({ type: 'string', enum: ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal', 'pause_turn'] }),
  stop_sequence: nullable(STRING),
  usage: object({ input_tokens: INTEGER, output_tokens: INTEGER }),
});

const EXAMPLE = MESSAGES_EXAMPLE.input;

const MESSAGES_ERRORS = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => code.startsWith('chat.') || code.startsWith('upstream.'));

const ANTHROPIC_HEADERS = (): MethodDecorator =>
  applyDecorators(
    ApiHeader({ name: 'anthropic-version', required: false, description: 'accepted and ignored' }),
    ApiHeader({ name: 'anthropic-beta', required: false, description: 'accepted and ignored' }),
  );

export const ApiMessages = (): MethodDecorator =>
  applyDecorators(
    ApiBody({ schema: asSchema(ANTHROPIC_REQUEST_SCHEMA as unknown as JsonSchema), examples: { messages: { value: EXAMPLE } } }),
    ApiHeader({ name: 'PAYMENT-SIGNATURE', required: false, description: 'the x402 payment for a paid model; absent: the 402 quote' }),
    ApiHeader({ name: 'X-Session-Id', required: false }),
    ApiHeader({ name: 'X-Gw-Debug', required: false, description: '`true` adds the routing and timing headers' }),
    ANTHROPIC_HEADERS(),
    // A free model needs no payment at all.
    ApiSecurity({}),
    ApiPaid('budget.exceeded', 'rate_limit.channel_busy', ...MESSAGES_ERRORS),
    ApiResponse({
      status: 200,
      description:
        'the message; with `stream: true`, server-sent events named message_start, content_block_start, content_block_delta (text_delta, input_json_delta, and from Anthropic models thinking_delta and signature_delta), content_block_stop, message_delta, message_stop, with ping as the keep-alive and error on a failure midway',
      headers: {
        ...PAID_ANSWER_HEADERS,
        'x-gw-session': { description: 'session token', schema: { type: 'string' } },
        'x-gw-fallback': { description: 'set when a fallback provider served', schema: { type: 'string' } },
      },
      content: { 'application/json': { schema: asSchema(MESSAGE), example: MESSAGES_EXAMPLE.output }, 'text/event-stream': { schema: { type: 'string' } } },
    }),
  );

export const ApiCountTokens = (): MethodDecorator =>
  applyDecorators(
    ApiBody({ schema: asSchema(ANTHROPIC_COUNT_TOKENS_SCHEMA as unknown as JsonSchema), examples: { count: { value: { model: EXAMPLE.model, messages: EXAMPLE.messages } } } }),
    ANTHROPIC_HEADERS(),
    ApiSecurity({}),
    ApiErrors('chat.model_not_found', 'chat.too_many_messages', 'chat.blank_conversation', 'rate_limit.exceeded'),
    ApiResponse({
      status: 200,
      description: "the request's input tokens as the gateway estimates them (what its quote is priced on)",
      content: { 'application/json': { schema: asSchema(object({ input_tokens: INTEGER })) } },
    }),
  );
