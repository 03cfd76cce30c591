import { CHAT_ROLES, MAX_MESSAGES, MAX_NESTING_DEPTH, REASONING_EFFORTS, SERVICE_TIERS } from '../../providers/domain/chat-request';

/** A text part: OpenAI's content part and Anthropic's text block have the same shape. */
export const TEXT_PART = {
  type: 'object',
  required: ['type', 'text'],
  properties: { type: { const: 'text' }, text: { type: 'string' } },
} as const;

const IMAGE_PART = {
  type: 'object',
  required: ['type', 'image_url'],
  properties: {
    type: { const: 'image_url' },
    image_url: {
      type: 'object',
      required: ['url'],
      properties: { url: { type: 'string', minLength: 1 }, detail: { enum: ['auto', 'low', 'high'] } },
    },
  },
} as const;

const TOOL_CALL = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string', minLength: 1 },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string', minLength: 1 }, arguments: { type: 'string' } },
    },
  },
} as const;

const FUNCTION_TOOL = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        description: { type: ['string', 'null'] },
        parameters: { type: ['object', 'null'] },
        strict: { type: ['boolean', 'null'] },
      },
    },
  },
} as const;

/** What every completion request's schema says first: its dialect, and the nesting bound the edge enforces. */
export const REQUEST_SCHEMA_HEADER = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $comment: `Objects and arrays nest at most ${MAX_NESTING_DEPTH} levels, the body being level 1 (counted as the body is read, before it is parsed).`,
} as const;

/**
 * JSON Schema of the chat request (spec 2.1, 2.2). The gateway validates bodies with it and
 * publishes it in the 402's `extensions.bazaar` and the OpenAPI document, so what we check and what
 * we advertise agree. Unknown fields are allowed (OpenAI clients send more) and never forwarded.
 * Every optional field, the messages' `name`, `tool_calls` and `tool_call_id` and the tools'
 * function fields also take null, which means unset, as OpenAI's SDK types and other clients send
 * it (docs/decisions.md, "Null is unset"). `description` on a union or an enum is the message a
 * client gets when the value fits none of its branches.
 */
export const CHAT_REQUEST_SCHEMA = {
  ...REQUEST_SCHEMA_HEADER,
  title: 'ChatCompletionRequest',
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1, description: 'a <provider>/<model> id, an alias or a profile (auto, eco, premium, free)' },
    messages: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_MESSAGES,
      items: {
        type: 'object',
        required: ['role'],
        properties: {
          role: { enum: [...CHAT_ROLES] },
          content: {
            type: ['string', 'array', 'null'],
            items: {
              type: 'object',
              required: ['type'],
              if: { properties: { type: { const: 'text' } } },
              then: TEXT_PART,
              else: {
                if: { properties: { type: { const: 'image_url' } } },
                then: IMAGE_PART,
                else: { properties: { type: { enum: ['text', 'image_url'] } } },
              },
            },
          },
          name: { type: ['string', 'null'] },
          tool_calls: { type: ['array', 'null'], items: TOOL_CALL },
          tool_call_id: { type: ['string', 'null'] },
        },
      },
    },
    max_tokens: { type: ['integer', 'null'], minimum: 1 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    stream: { type: ['boolean', 'null'] },
    n: { type: ['integer', 'null'], enum: [1, null], description: 'must be 1: one quote buys one completion' },
    tools: { type: ['array', 'null'], items: FUNCTION_TOOL },
    tool_choice: {
      description: 'must be "auto", "none", "required" or {"type": "function", "function": {"name": ...}}',
      anyOf: [
        { enum: ['auto', 'none', 'required', null] },
        {
          type: 'object',
          required: ['type', 'function'],
          properties: { type: { const: 'function' }, function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
        },
      ],
    },
    stop: { type: ['string', 'array', 'null'], items: { type: 'string' }, maxItems: 4 },
    seed: { type: ['integer', 'null'] },
    presence_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    frequency_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    response_format: {
      type: ['object', 'null'],
      required: ['type'],
      properties: { type: { enum: ['text', 'json_object', 'json_schema'] }, json_schema: { type: 'object' } },
    },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    logprobs: { type: ['boolean', 'null'] },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20 },
    reasoning_effort: { enum: [...REASONING_EFFORTS, null] },
    user: { type: ['string', 'null'], maxLength: 256 },
    // OpenAI's own bounds: 16 pairs, keys of at most 64 characters, string values of at most 512.
    metadata: { type: ['object', 'null'], maxProperties: 16, propertyNames: { maxLength: 64 }, additionalProperties: { type: 'string', maxLength: 512 } },
    service_tier: { enum: [...SERVICE_TIERS, null] },
  },
  // A top_logprobs that is set (not null) needs logprobs: true.
  if: { required: ['top_logprobs'], properties: { top_logprobs: { type: 'integer' } } },
  then: { required: ['logprobs'], properties: { logprobs: { const: true, description: 'must be true when top_logprobs is set' } } },
} as const;
