import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_CODES, type ErrorCode } from '../../errors/error-codes';
import { ERROR_STATUS } from '../error-response';

/**
 * A JSON Schema (2020-12, the dialect of OpenAPI 3.1). @nestjs/swagger types schemas as OpenAPI
 * 3.0's, without `const` or type lists, so they go through `asSchema` where it takes them.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

export const asSchema = (schema: JsonSchema): SchemaObject => schema as SchemaObject;

/** `$ref` to a schema of the document's components. */
export const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

const ERROR_TYPES = [...new Set(Object.values(ERROR_CODES).map((entry) => entry.type))].sort();

/** The error envelope of spec 2.12 with the stable `error.code` and OpenAI's `param` (docs/decisions.md, "Stable error codes"). */
const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    type: { const: 'error', description: "on the Anthropic Messages routes only, Anthropic's own top-level field" },
    error: {
      type: 'object',
      required: ['type', 'message', 'code', 'param'],
      properties: {
        type: { type: 'string', enum: ERROR_TYPES },
        message: { type: 'string', description: 'plain text for people; may be reworded' },
        code: { type: 'string', enum: Object.keys(ERROR_CODES).sort(), description: 'stable: programs branch on it' },
        param: { type: ['string', 'null'], description: 'the request field at fault (`messages[3].content`, a query parameter), else null' },
      },
    },
  },
  example: { error: { type: 'model_not_found', message: 'model not found: acme/none', code: 'chat.model_not_found', param: null } },
};

/** The tools' static 502 bodies (spec 7), which replace the envelope. */
const STATIC_ERROR: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string', enum: Object.values(ERROR_CODES).flatMap((entry) => ('staticBody' in entry ? [entry.staticBody] : [])) } },
  example: { error: 'search provider error' },
};

const ATOMIC = { type: 'string', pattern: '^[0-9]+$', description: 'atomic USDC units (6 decimals)' } as const;
const USDC_DECIMAL = { type: 'string', pattern: '^[0-9]+\\.[0-9]{6}$', description: 'USDC with 6 decimal places' } as const;

/** The x402 challenge of spec 2.4, snake_case as the body carries it. */
const PAYMENT_REQUIRED: JsonSchema = {
  type: 'object',
  required: ['x402_version', 'resource', 'accepts', 'cost_breakdown', 'error'],
  properties: {
    x402_version: { type: 'integer', const: 2 },
    resource: { type: 'object', required: ['url', 'method'], properties: { url: { type: 'string' }, method: { type: 'string' } } },
    accepts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['scheme', 'network', 'amount', 'asset', 'pay_to', 'max_timeout_seconds'],
        properties: {
          scheme: { type: 'string', enum: ['exact', 'escrow'] },
          network: { type: 'string', description: 'CAIP-2: solana:<genesis hash>' },
          amount: ATOMIC,
          asset: { type: 'string', description: 'base58 USDC mint' },
          pay_to: { type: 'string', description: 'base58 recipient' },
          max_timeout_seconds: { type: 'integer' },
          escrow_program_id: { type: 'string', description: 'escrow entries only' },
        },
      },
    },
    cost_breakdown: {
      type: 'object',
      required: ['provider_cost', 'platform_fee', 'total', 'currency', 'fee_percent'],
      properties: { provider_cost: USDC_DECIMAL, platform_fee: USDC_DECIMAL, total: USDC_DECIMAL, currency: { type: 'string', const: 'USDC' }, fee_percent: { type: 'integer' } },
    },
    error: { type: 'string', const: 'Payment required' },
    extensions: { type: 'object', description: 'chat only: extensions.bazaar, the input schema and an output example' },
  },
  example: {
    x402_version: 2,
    resource: { url: '/v1/search', method: 'POST' },
    accepts: [
      {
        scheme: 'exact',
        network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        amount: '10500',
        asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        pay_to: 'GatewayRecipient1111111111111111111111111111',
        max_timeout_seconds: 300,
      },
    ],
    cost_breakdown: { provider_cost: '0.010000', platform_fee: '0.000500', total: '0.010500', currency: 'USDC', fee_percent: 5 },
    error: 'Payment required',
  },
};

/** Component schemas every document carries. */
export const WIRE_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Error: ERROR_ENVELOPE,
  StaticProviderError: STATIC_ERROR,
  PaymentRequired: PAYMENT_REQUIRED,
};

/** The codes by the status they are answered with, in status order. */
export function codesByStatus(codes: Iterable<ErrorCode>): Map<number, ErrorCode[]> {
  const grouped = new Map<number, ErrorCode[]>();
  for (const code of [...new Set(codes)].sort()) {
    const status = ERROR_STATUS[ERROR_CODES[code].type];
    grouped.set(status, [...(grouped.get(status) ?? []), code]);
  }
  return new Map([...grouped].sort(([a], [b]) => a - b));
}

/** An object whose properties are all required but `optional`. */
export const object = (properties: Readonly<Record<string, JsonSchema>>, optional: readonly string[] = []): JsonSchema => ({
  type: 'object',
  required: Object.keys(properties).filter((name) => !optional.includes(name)),
  properties,
});

export const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type, 'null'] });

/** The list envelope of spec 2.7 and the enterprise lists: `{object: list, data, total}`. */
export const listOf = (item: JsonSchema): JsonSchema => object({ object: { const: 'list' }, data: { type: 'array', items: item }, total: { type: 'integer' } });

export const STRING: JsonSchema = { type: 'string' };
export const INTEGER: JsonSchema = { type: 'integer' };
export const NUMBER: JsonSchema = { type: 'number' };
export const BOOLEAN: JsonSchema = { type: 'boolean' };
export const TIMESTAMP: JsonSchema = { type: 'string', format: 'date-time' };
export const USDC: JsonSchema = USDC_DECIMAL;
export const ATOMIC_USDC: JsonSchema = ATOMIC;
