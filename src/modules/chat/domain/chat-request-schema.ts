import { CHAT_ROLES, MAX_MESSAGES, REASONING_EFFORTS, SERVICE_TIERS } from './chat-request';
import { MAX_NESTING_DEPTH } from './json-nesting';

const TEXT_PART = {
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
        description: { type: 'string' },
        parameters: { type: 'object' },
        strict: { type: 'boolean' },
      },
    },
  },
} as const;

/**
 * JSON Schema of the chat request (spec 2.1, 2.2). The gateway validates bodies with it and
 * publishes it in the 402's `extensions.bazaar`, so what we check and what we advertise agree.
 * Unknown fields are allowed (OpenAI clients send more) and never forwarded. `description` on a
 * union is the message a client gets when the value fits none of its branches.
 */
export const CHAT_REQUEST_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'ChatCompletionRequest',
  $comment: `Objects and arrays nest at most ${MAX_NESTING_DEPTH} levels, the body being level 1 (checked beside the schema).`,
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
          name: { type: 'string' },
          tool_calls: { type: 'array', items: TOOL_CALL },
          tool_call_id: { type: 'string' },
        },
      },
    },
    max_tokens: { type: 'integer', minimum: 1 },
    max_completion_tokens: { type: 'integer', minimum: 1 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    stream: { type: 'boolean' },
    n: { type: 'integer', const: 1, description: 'must be 1: one quote buys one completion' },
    tools: { type: 'array', items: FUNCTION_TOOL },
    tool_choice: {
      description: 'must be "auto", "none", "required" or {"type": "function", "function": {"name": ...}}',
      anyOf: [
        { enum: ['auto', 'none', 'required'] },
        {
          type: 'object',
          required: ['type', 'function'],
          properties: { type: { const: 'function' }, function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
        },
      ],
    },
    stop: { type: ['string', 'array'], items: { type: 'string' }, maxItems: 4 },
    seed: { type: 'integer' },
    presence_penalty: { type: 'number', minimum: -2, maximum: 2 },
    frequency_penalty: { type: 'number', minimum: -2, maximum: 2 },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: ['text', 'json_object', 'json_schema'] }, json_schema: { type: 'object' } },
    },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    parallel_tool_calls: { type: 'boolean' },
    logprobs: { type: 'boolean' },
    top_logprobs: { type: 'integer', minimum: 0, maximum: 20 },
    reasoning_effort: { enum: [...REASONING_EFFORTS] },
    user: { type: 'string', maxLength: 256 },
    // OpenAI's own bounds: 16 pairs, keys of at most 64 characters, string values of at most 512.
    metadata: { type: 'object', maxProperties: 16, propertyNames: { maxLength: 64 }, additionalProperties: { type: 'string', maxLength: 512 } },
    service_tier: { enum: [...SERVICE_TIERS] },
  },
  dependencies: {
    top_logprobs: { required: ['logprobs'], properties: { logprobs: { const: true, description: 'must be true when top_logprobs is set' } } },
  },
} as const;
