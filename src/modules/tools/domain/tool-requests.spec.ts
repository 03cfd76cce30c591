import bs58 from 'bs58';
import { GatewayError } from '../../../errors/gateway-error';
import { parsePriceInput, parseSearchInput } from './tool-requests';

const MINT = bs58.encode(Buffer.alloc(32, 7));

function refused(parse: () => unknown): GatewayError {
  try {
    parse();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('request.invalid_body');
    return err as GatewayError;
  }
  throw new Error('expected a refusal');
}

const refusal = (parse: () => unknown): string => refused(parse).message;

describe('the tool request bodies', () => {
  it('search: trims the query, clamps max_results to 1..20, leaves it out when absent or null', () => {
    expect(parseSearchInput({ query: '  a b  ' })).toEqual({ query: 'a b', maxResults: undefined });
    expect(parseSearchInput({ query: 'q', max_results: null })).toEqual({ query: 'q', maxResults: undefined });
    expect(parseSearchInput({ query: 'q', max_results: -4 }).maxResults).toBe(1);
    expect(parseSearchInput({ query: 'q', max_results: 1e300 }).maxResults).toBe(20);
    expect(parseSearchInput({ query: 'q', max_results: 7 }).maxResults).toBe(7);
  });

  it('search: counts code points, so 2,000 emoji pass and 2,001 characters do not', () => {
    expect(parseSearchInput({ query: '𝄞'.repeat(2000) }).query).toHaveLength(4000);
    expect(refusal(() => parseSearchInput({ query: 'x'.repeat(2001) }))).toBe('query must be at most 2000 characters');
    expect(refusal(() => parseSearchInput({ query: '\t\n ' }))).toBe('query must not be empty');
    expect(refusal(() => parseSearchInput({ query: 'q', max_results: Number.NaN }))).toBe('max_results must be an integer');
    expect(refusal(() => parseSearchInput(null))).toBe('the body must be a JSON object');
    expect(refusal(() => parseSearchInput({ query: 'q', ['y'.repeat(500)]: 1 }))).toHaveLength(100 + ' is not a field of this request'.length);
  });

  it('price: keeps order and repeats; refuses anything but 1 to 50 base58 addresses of 32 bytes', () => {
    expect(parsePriceInput({ mints: [MINT, MINT] })).toEqual({ mints: [MINT, MINT] });
    expect(refusal(() => parsePriceInput({ mints: [MINT, bs58.encode(Buffer.alloc(33, 1))] }))).toBe('mints[1] must be a base58 address of 32 bytes');
    expect(refusal(() => parsePriceInput({ mints: [MINT, 'x'.repeat(10_000)] }))).toBe('mints[1] must be a base58 address of 32 bytes');
    expect(refusal(() => parsePriceInput({ mints: [42] }))).toBe('mints[0] must be a base58 address of 32 bytes');
    expect(refusal(() => parsePriceInput({ mints: Array(51).fill(MINT) }))).toBe('mints must hold at most 50 addresses (got 51)');
  });

  it('names the field at fault in param, none when the body itself is', () => {
    expect(refused(() => parseSearchInput({ query: 7 })).param).toBe('query');
    expect(refused(() => parseSearchInput({ query: 'q', max_results: 'many' })).param).toBe('max_results');
    expect(refused(() => parseSearchInput({ query: 'q', extra: 1 })).param).toBe('extra');
    expect(refused(() => parsePriceInput({ mints: [MINT, 'nope'] })).param).toBe('mints[1]');
    expect(refused(() => parsePriceInput({ mints: [] })).param).toBe('mints');
    expect(refused(() => parsePriceInput([])).param).toBeNull();
  });
});
