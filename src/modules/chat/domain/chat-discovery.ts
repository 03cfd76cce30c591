import { CHAT_REQUEST_SCHEMA } from './chat-request-schema';

const { $schema: _draft, ...BODY_SCHEMA } = CHAT_REQUEST_SCHEMA;

const EXAMPLE_INPUT = { model: 'auto', messages: [{ role: 'user', content: 'Say hello in French.' }], max_tokens: 64 };

const EXAMPLE_OUTPUT = {
  id: 'chatcmpl-example',
  object: 'chat.completion',
  created: 1_763_856_000,
  model: 'google/gemini-2.5-flash',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Bonjour !', refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 },
};

/**
 * `extensions.bazaar` of the chat 402 body (spec 2.4): x402's discovery extension, an `info`
 * descriptor (how to call the endpoint, with an example) and the JSON Schema that `info` follows,
 * whose body schema is the one the gateway validates requests with. Never in the header form.
 */
export const CHAT_DISCOVERY = {
  bazaar: {
    info: {
      input: { type: 'http', method: 'POST', bodyType: 'json', body: EXAMPLE_INPUT },
      output: { type: 'json', example: EXAMPLE_OUTPUT },
    },
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['input'],
      properties: {
        input: {
          type: 'object',
          required: ['type', 'method', 'bodyType', 'body'],
          properties: {
            type: { const: 'http' },
            method: { const: 'POST' },
            bodyType: { const: 'json' },
            body: BODY_SCHEMA,
          },
        },
        output: {
          type: 'object',
          properties: { type: { const: 'json' }, example: { type: 'object' } },
        },
      },
    },
  },
} as const;
