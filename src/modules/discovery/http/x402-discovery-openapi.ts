import { nullable, object, STRING, type JsonSchema } from '../../../http/openapi/wire-schemas';

/** GET /.well-known/x402 (docs/decisions.md, "x402 discovery"), for the OpenAPI document. */
const TERMS = object({ scheme: { enum: ['exact', 'escrow'] }, network: STRING, asset: STRING, payTo: STRING, escrowProgramId: STRING }, ['escrowProgramId']);

const PRICE: JsonSchema = {
  oneOf: [
    object({ kind: { const: 'flat' }, amount: { type: 'string', pattern: '^[0-9]+$' }, currency: { const: 'USDC' }, providerCost: STRING, platformFee: STRING, feePercent: { type: 'integer' } }),
    object({ kind: { const: 'per-token' }, currency: { const: 'USDC' }, feePercent: { type: 'integer' }, rates: STRING, note: STRING }),
  ],
};

const RESOURCE = object(
  {
    resource: { type: 'string', description: 'path, or the absolute URL of a service paid directly' },
    method: { const: 'POST' },
    type: { const: 'http' },
    accepts: { type: 'array', items: TERMS },
    price: PRICE,
    input: object({ bodyType: { const: 'json' }, schema: { type: 'object' }, example: {} }, ['example']),
    output: object({ example: {} }),
    paidDirectly: { const: true },
    description: nullable(STRING),
  },
  ['accepts', 'price', 'input', 'output', 'paidDirectly', 'description'],
);

export const X402_DISCOVERY: JsonSchema = object({ x402Version: { const: 2 }, resources: { type: 'array', items: RESOURCE } });
