import { BOOLEAN, INTEGER, NUMBER, object, STRING, type JsonSchema } from '../../../http/openapi/wire-schemas';

/** GET /v1/models (spec 2.6), GET /v1/models/{model} and GET /pricing, for the OpenAPI document. */
export const MODEL: JsonSchema = object({
  id: { type: 'string', description: 'the value to pass as `model`' },
  object: { const: 'model' },
  created: { type: 'integer', description: "OpenAI's field: the catalog version's date, in Unix seconds" },
  owned_by: { type: 'string', description: "OpenAI's field: the provider" },
  provider: STRING,
  display_name: STRING,
  context_window: INTEGER,
  capabilities: object({ streaming: BOOLEAN, tools: BOOLEAN, vision: BOOLEAN, reasoning: BOOLEAN }),
  pricing: object({ input_per_million: NUMBER, output_per_million: NUMBER, currency: { const: 'USDC' }, fee_percent: INTEGER }),
});

export const MODEL_LIST: JsonSchema = object({ object: { const: 'list' }, data: { type: 'array', items: MODEL } });

const RATE = object({ provider: STRING, with_fee: STRING });

export const PRICING: JsonSchema = object({
  object: { const: 'pricing' },
  catalog_version: STRING,
  currency: { const: 'USDC' },
  fee_percent: INTEGER,
  example_request: object({ input_tokens: INTEGER, output_tokens: INTEGER }),
  data: {
    type: 'array',
    items: object({
      id: STRING,
      provider: STRING,
      display_name: STRING,
      free: BOOLEAN,
      input_per_million: RATE,
      output_per_million: RATE,
      example_cost: object({ provider_cost: STRING, platform_fee: STRING, total: STRING }),
    }),
  },
});
