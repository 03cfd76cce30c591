import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiResponse } from '@nestjs/swagger';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { asSchema, BOOLEAN, INTEGER, listOf, nullable, NUMBER, object, STRING, TIMESTAMP, type JsonSchema } from '../../../http/openapi/wire-schemas';
import { PAID_ANSWER_HEADERS } from '../../payments/http/paid-route-openapi';
import { PRICE_BODY_SCHEMA, PRICE_EXAMPLE, SEARCH_BODY_SCHEMA, SEARCH_EXAMPLE } from '../domain/tool-schemas';

/** The tools' and the registry's wire shapes (spec 2.7 to 2.9), for the OpenAPI document. */
const SEARCH_ANSWER: JsonSchema = object({ query: STRING, results: { type: 'array', items: object({ title: STRING, url: STRING, snippet: STRING }) }, provider: STRING });

const PRICE_ANSWER: JsonSchema = object({
  prices: {
    type: 'array',
    items: object({
      mint: STRING,
      price: { ...object({ usd_price: NUMBER, decimals: nullable(INTEGER), block_id: nullable(INTEGER), price_change_24h: nullable(NUMBER) }), type: ['object', 'null'] },
    }),
  },
  source: STRING,
  as_of: TIMESTAMP,
});

export const SERVICE_ENTRY: JsonSchema = object({
  id: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' },
  name: STRING,
  category: STRING,
  endpoint: STRING,
  x402_enabled: BOOLEAN,
  internal: BOOLEAN,
  description: nullable(STRING),
  pricing: STRING,
  chains: { type: 'array', items: { const: 'solana' } },
  source: { enum: ['config', 'api'] },
  price_per_request_usdc: { type: ['number', 'null'], description: 'flat price before the fee' },
  available: { type: 'boolean', description: 'false while the gateway would not answer it (a tool whose upstream is not configured, or that is unpriced)' },
});

export const SERVICE_LIST = listOf(SERVICE_ENTRY);

export const ApiSearch = (): MethodDecorator =>
  applyDecorators(
    ApiBody({ schema: asSchema(SEARCH_BODY_SCHEMA), examples: { search: { value: SEARCH_EXAMPLE.input } } }),
    ApiAnswer(200, 'the results (charged)', SEARCH_ANSWER, { example: SEARCH_EXAMPLE.output, headers: PAID_ANSWER_HEADERS }),
  );

export const ApiPrice = (): MethodDecorator =>
  applyDecorators(
    ApiBody({ schema: asSchema(PRICE_BODY_SCHEMA), examples: { price: { value: PRICE_EXAMPLE.input } } }),
    ApiAnswer(200, 'one price per mint, in request order (charged)', PRICE_ANSWER, { example: PRICE_EXAMPLE.output, headers: PAID_ANSWER_HEADERS }),
  );

/** The proxied service's answer, relayed: JSON or plain text as it is, anything else as an attachment. */
export const ApiProxied = (): MethodDecorator =>
  applyDecorators(
    ApiBody({ description: 'forwarded to the service byte for byte', schema: { type: 'object' } }),
    ApiResponse({
      status: '2XX',
      description: "the service's answer (charged)",
      headers: PAID_ANSWER_HEADERS,
      content: { 'application/json': { schema: {} }, 'text/plain': { schema: { type: 'string' } }, 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    }),
  );
