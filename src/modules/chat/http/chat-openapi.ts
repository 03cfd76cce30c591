import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ERROR_CODES, type ErrorCode } from '../../../errors/error-codes';
import { asSchema, INTEGER, nullable, object, STRING, type JsonSchema } from '../../../http/openapi/wire-schemas';
import { ApiPaid, PAID_ANSWER_HEADERS } from '../../payments/http/paid-route-openapi';
import { CHAT_DISCOVERY } from '../domain/chat-discovery';

/**
 * POST /v1/chat/completions (spec 2.1 to 2.3, 4.1), for the OpenAPI document. `refusal` and
 * `logprobs` are required, as OpenAI's schema has them: every JSON answer carries them (openai-codec.ts).
 */
const MESSAGE: JsonSchema = object({ role: STRING, content: nullable(STRING), refusal: nullable(STRING), tool_calls: { type: 'array', items: { type: 'object' } } }, ['content', 'tool_calls']);

const COMPLETION: JsonSchema = object(
  {
    id: STRING,
    object: { const: 'chat.completion' },
    created: INTEGER,
    model: STRING,
    choices: { type: 'array', items: object({ index: INTEGER, message: MESSAGE, finish_reason: nullable(STRING), logprobs: { type: ['object', 'null'] } }) },
    usage: { ...object({ prompt_tokens: INTEGER, completion_tokens: INTEGER, total_tokens: INTEGER }), type: ['object', 'null'] },
  },
  ['usage'],
);

const CHAT_ERRORS = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => code.startsWith('chat.') || code.startsWith('upstream.'));

const { info, schema } = CHAT_DISCOVERY.bazaar;

export const ApiChatCompletions = (): MethodDecorator =>
  applyDecorators(
    ApiBody({ schema: asSchema(schema.properties.input.properties.body), examples: { chat: { value: info.input.body } } }),
    ApiHeader({ name: 'PAYMENT-SIGNATURE', required: false, description: 'the x402 payment for a paid model; absent: the 402 quote' }),
    ApiHeader({ name: 'X-Session-Id', required: false }),
    ApiHeader({ name: 'X-Gw-Debug', required: false, description: '`true` adds the routing and timing headers' }),
    // A free model needs no payment at all.
    ApiSecurity({}),
    ApiPaid('budget.exceeded', 'rate_limit.channel_busy', ...CHAT_ERRORS),
    ApiResponse({
      status: 200,
      description: 'the completion; with `stream: true`, server-sent events of chat.completion.chunk ending with `data: [DONE]`',
      headers: {
        ...PAID_ANSWER_HEADERS,
        'x-gw-session': { description: 'session token', schema: { type: 'string' } },
        'x-gw-fallback': { description: 'set when a fallback provider served', schema: { type: 'string' } },
      },
      content: { 'application/json': { schema: asSchema(COMPLETION), example: info.output.example }, 'text/event-stream': { schema: { type: 'string' } } },
    }),
  );
