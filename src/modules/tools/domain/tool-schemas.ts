import { MAX_MINTS, MAX_QUERY_CHARACTERS, MAX_RESULTS_RANGE } from './tool-requests';

/** JSON Schemas of the tools' bodies, as `tool-requests.ts` validates them (spec 2.8, 2.9). */
export const SEARCH_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARACTERS, description: 'trimmed; 1 to 2,000 characters' },
    max_results: { type: 'integer', description: `clamped to ${MAX_RESULTS_RANGE.min}..${MAX_RESULTS_RANGE.max}` },
  },
} as const;

export const PRICE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['mints'],
  properties: { mints: { type: 'array', minItems: 1, maxItems: MAX_MINTS, items: { type: 'string', description: 'base58 of 32 bytes' } } },
} as const;

export const SEARCH_EXAMPLE = {
  input: { query: 'solana transaction fees', max_results: 3 },
  output: { query: 'solana transaction fees', results: [{ title: 'Fees on Solana', url: 'https://solana.com/docs/core/fees', snippet: 'Every transaction pays a base fee...' }], provider: 'tavily' },
};

export const PRICE_EXAMPLE = {
  input: { mints: ['So11111111111111111111111111111111111111112'] },
  output: {
    prices: [{ mint: 'So11111111111111111111111111111111111111112', price: { usd_price: 147.48, decimals: 9, block_id: 348004023, price_change_24h: 1.29 } }],
    source: 'jupiter',
    as_of: '2026-11-25T12:00:00.000Z',
  },
};
