import { object, type JsonSchema } from '../../../http/openapi/wire-schemas';

/** The operator routes' shapes (spec 4.4, 4.10), for the OpenAPI document. */
const STATUS: JsonSchema = { enum: ['ok', 'degraded', 'error'] };
const DEPENDENCY: JsonSchema = { enum: ['connected', 'not_configured', 'error'] };

export const HEALTH: JsonSchema = object(
  {
    status: STATUS,
    version: { type: 'string', description: 'with the admin token only' },
    checks: {
      ...object({
        database: DEPENDENCY,
        redis: DEPENDENCY,
        solana_rpc: DEPENDENCY,
        providers: { type: 'object', additionalProperties: DEPENDENCY },
        fee_sponsorship: { enum: ['ok', 'exhausted', 'not_configured'] },
      }),
      description: 'with the admin token only',
    },
  },
  ['version', 'checks'],
);

export const STATUS_ONLY: JsonSchema = object({ status: STATUS });
export const LIVE: JsonSchema = object({ status: { const: 'ok' } });
