import { MAX_MESSAGES } from '../../providers/domain/chat-request';
import { REQUEST_SCHEMA_HEADER, TEXT_PART } from './chat-request-schema';

/** A block's `type` chooses its schema; an unknown type names the ones accepted. */
function blockUnion(blocks: Record<string, object>, where: string): object {
  const names = Object.keys(blocks);
  let schema: object = { properties: { type: { enum: names, description: `must be one of: ${names.join(', ')} (${where})` } } };
  for (const name of names.reverse()) schema = { if: { properties: { type: { const: name } } }, then: blocks[name], else: schema };
  return { type: 'object', required: ['type'], ...schema };
}

/** A prompt-cache breakpoint, as Anthropic takes it: forwarded to Anthropic models, dropped elsewhere. */
const CACHE_CONTROL = {
  type: ['object', 'null'],
  required: ['type'],
  properties: { type: { const: 'ephemeral', description: 'must be "ephemeral"' }, ttl: { enum: ['5m', '1h'], description: 'must be "5m" or "1h"' } },
} as const;

/** At most this many blocks and tools may carry cache_control, as Anthropic allows. */
export const MAX_CACHE_BREAKPOINTS = 4;

const TEXT_BLOCK = { ...TEXT_PART, properties: { ...TEXT_PART.properties, cache_control: CACHE_CONTROL } } as const;

const IMAGE_BLOCK = {
  type: 'object',
  required: ['type', 'source'],
  properties: {
    type: { const: 'image' },
    source: {
      type: 'object',
      required: ['type'],
      if: { properties: { type: { const: 'base64' } } },
      then: { required: ['media_type', 'data'], properties: { media_type: { type: 'string', minLength: 1 }, data: { type: 'string', minLength: 1 } } },
      else: {
        required: ['url'],
        properties: { type: { enum: ['base64', 'url'], description: 'must be "base64" or "url"' }, url: { type: 'string', minLength: 1 } },
      },
    },
    cache_control: CACHE_CONTROL,
  },
} as const;

const TOOL_USE_BLOCK = {
  type: 'object',
  required: ['type', 'id', 'name', 'input'],
  properties: { type: { const: 'tool_use' }, id: { type: 'string', minLength: 1 }, name: { type: 'string', minLength: 1 }, input: { type: 'object' }, cache_control: CACHE_CONTROL },
} as const;

const TOOL_RESULT_BLOCK = {
  type: 'object',
  required: ['type', 'tool_use_id'],
  properties: {
    type: { const: 'tool_result' },
    tool_use_id: { type: 'string', minLength: 1 },
    content: { type: ['string', 'array', 'null'], items: blockUnion({ text: TEXT_BLOCK, image: IMAGE_BLOCK }, 'in a tool_result') },
    is_error: { type: ['boolean', 'null'] },
    cache_control: CACHE_CONTROL,
  },
} as const;

const THINKING_BLOCK = { type: 'object', required: ['type', 'thinking'], properties: { type: { const: 'thinking' }, thinking: { type: 'string' }, signature: { type: ['string', 'null'] } } } as const;
const REDACTED_THINKING_BLOCK = { type: 'object', required: ['type', 'data'], properties: { type: { const: 'redacted_thinking' }, data: { type: 'string' } } } as const;

const CONTENT_BLOCK = blockUnion(
  { text: TEXT_BLOCK, image: IMAGE_BLOCK, tool_use: TOOL_USE_BLOCK, tool_result: TOOL_RESULT_BLOCK, thinking: THINKING_BLOCK, redacted_thinking: REDACTED_THINKING_BLOCK },
  'in a message',
);

const TOOL = {
  type: 'object',
  required: ['name', 'input_schema'],
  properties: {
    type: { enum: ['custom', null], description: 'must be "custom": Anthropic server tools are not offered' },
    name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
    description: { type: ['string', 'null'] },
    input_schema: { type: 'object' },
    cache_control: CACHE_CONTROL,
  },
} as const;

/**
 * JSON Schema of the Anthropic Messages request (spec 4.10) as the gateway takes it: the fields of
 * docs/decisions.md, "The Anthropic Messages codec". Unknown fields are allowed and never
 * forwarded; `cache_control` is checked and forwarded to Anthropic models alone (docs/decisions.md,
 * "Anthropic passthrough"); every optional field also takes null, which means unset.
 * `max_tokens` is required on /v1/messages (it prices the request) and not on count_tokens.
 */
export const ANTHROPIC_REQUEST_SCHEMA = {
  ...REQUEST_SCHEMA_HEADER,
  title: 'AnthropicMessagesRequest',
  type: 'object',
  required: ['model', 'messages', 'max_tokens'],
  properties: {
    model: { type: 'string', minLength: 1, description: 'a <provider>/<model> id, an alias, a profile, or a bare Anthropic model id' },
    max_tokens: { type: 'integer', minimum: 1 },
    messages: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_MESSAGES,
      items: {
        type: 'object',
        required: ['role', 'content'],
        properties: {
          role: { enum: ['user', 'assistant'], description: 'must be one of: user, assistant' },
          content: { type: ['string', 'array'], items: CONTENT_BLOCK },
        },
      },
    },
    system: { type: ['string', 'array', 'null'], items: TEXT_BLOCK },
    stop_sequences: { type: ['array', 'null'], items: { type: 'string' }, maxItems: 4 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    top_k: { type: ['integer', 'null'], minimum: 0 },
    stream: { type: ['boolean', 'null'] },
    tools: { type: ['array', 'null'], items: TOOL },
    tool_choice: {
      type: ['object', 'null'],
      required: ['type'],
      if: { properties: { type: { const: 'tool' } } },
      then: { required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
      else: { properties: { type: { enum: ['auto', 'any', 'tool', 'none'], description: 'must be one of: auto, any, tool, none' } } },
      properties: { disable_parallel_tool_use: { type: ['boolean', 'null'] } },
    },
    metadata: { type: ['object', 'null'], properties: { user_id: { type: ['string', 'null'], maxLength: 256 } } },
    thinking: {
      type: ['object', 'null'],
      required: ['type'],
      if: { properties: { type: { const: 'enabled' } } },
      then: { required: ['budget_tokens'], properties: { budget_tokens: { type: 'integer', minimum: 1 } } },
      else: { properties: { type: { enum: ['enabled', 'disabled'], description: 'must be "enabled" or "disabled"' } } },
    },
  },
} as const;

/** The same request for count_tokens, where `max_tokens` is optional. */
export const ANTHROPIC_COUNT_TOKENS_SCHEMA = {
  ...ANTHROPIC_REQUEST_SCHEMA,
  title: 'AnthropicCountTokensRequest',
  required: ['model', 'messages'],
  properties: { ...ANTHROPIC_REQUEST_SCHEMA.properties, max_tokens: { type: ['integer', 'null'], minimum: 1 } },
} as const;

/** A request and its answer, for the OpenAPI document and /.well-known/x402. */
export const MESSAGES_EXAMPLE = {
  input: { model: 'anthropic/claude-haiku-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }] },
  output: {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5',
    content: [{ type: 'text', text: 'Hello!' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 2 },
  },
} as const;
