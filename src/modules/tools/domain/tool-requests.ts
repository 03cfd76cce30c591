import bs58 from 'bs58';
import { fieldError, GatewayError } from '../../../errors/gateway-error';

/** Spec 2.8, 8. */
export const MAX_QUERY_CHARACTERS = 2000;
export const MAX_RESULTS_RANGE = { min: 1, max: 20 } as const;
/** Spec 2.9, 8. */
export const MAX_MINTS = 50;
/** Base58 of 32 bytes is at most 44 characters: longer text is refused before decoding. */
const MAX_MINT_CHARACTERS = 44;

export interface SearchInput {
  query: string;
  /** Clamped to 1..20; undefined leaves the upstream's default. */
  maxResults: number | undefined;
}

export interface PriceInput {
  /** As requested: order kept, repeats kept (they answer null). */
  mints: string[];
}

/** POST /v1/search (spec 2.8): `query` trimmed, 1 to 2,000 characters; `max_results` an integer, clamped. */
export function parseSearchInput(body: unknown): SearchInput {
  const fields = objectWithOnly(body, ['query', 'max_results']);
  const { query, max_results: maxResults } = fields;
  if (typeof query !== 'string') throw invalid('query', 'query must be a string');
  const trimmed = query.trim();
  if (trimmed.length === 0) throw invalid('query', 'query must not be empty');
  // Characters are code points: an emoji counts once, as a person reads it.
  if (trimmed.length > MAX_QUERY_CHARACTERS && [...trimmed].length > MAX_QUERY_CHARACTERS) throw invalid('query', `query must be at most ${MAX_QUERY_CHARACTERS} characters`);
  if (maxResults === undefined || maxResults === null) return { query: trimmed, maxResults: undefined };
  if (typeof maxResults !== 'number' || !Number.isInteger(maxResults)) throw invalid('max_results', 'max_results must be an integer');
  return { query: trimmed, maxResults: Math.min(MAX_RESULTS_RANGE.max, Math.max(MAX_RESULTS_RANGE.min, maxResults)) };
}

/** POST /v1/solana/price (spec 2.9): 1 to 50 base58 addresses of exactly 32 bytes. */
export function parsePriceInput(body: unknown): PriceInput {
  const { mints } = objectWithOnly(body, ['mints']);
  if (!Array.isArray(mints)) throw invalid('mints', 'mints must be an array of base58 addresses');
  if (mints.length === 0) throw invalid('mints', 'mints must not be empty');
  if (mints.length > MAX_MINTS) throw invalid('mints', `mints must hold at most ${MAX_MINTS} addresses (got ${mints.length})`);
  mints.forEach((mint: unknown, index) => {
    if (!isMintAddress(mint)) throw invalid(`mints[${index}]`, `mints[${index}] must be a base58 address of 32 bytes`);
  });
  return { mints: mints as string[] };
}

function isMintAddress(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_MINT_CHARACTERS) return false;
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}

/** A JSON object with no field outside `allowed` (the house rule for REST bodies: unknown fields are refused). */
function objectWithOnly(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new GatewayError('request.invalid_body', 'the body must be a JSON object');
  const unknown = Object.keys(body)
    .find((name) => !allowed.includes(name))
    ?.slice(0, 100);
  if (unknown !== undefined) throw invalid(unknown, `${unknown} is not a field of this request`);
  return body as Record<string, unknown>;
}

function invalid(param: string, message: string): GatewayError {
  return fieldError('request.invalid_body', param, message);
}
