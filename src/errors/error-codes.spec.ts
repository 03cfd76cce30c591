import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_STATUS } from '../http/error-response';
import { ERROR_CODES, type ErrorCode } from './error-codes';
import { GatewayError } from './gateway-error';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

/** The rows of the README's "Error codes" table: code, status, type, meaning. */
function readmeRows(): string[][] {
  const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Error codes\n')) ?? '';
  return [...section.matchAll(/^\| `([^`]+)` \| (\d{3}) \| `([^`]+)` \| (.+) \|$/gm)].map((row) => row.slice(1));
}

describe('the error code catalogue', () => {
  it('is the README table, row for row', () => {
    const expected = CODES.map((code) => [code, String(ERROR_STATUS[ERROR_CODES[code].type]), ERROR_CODES[code].type, ERROR_CODES[code].meaning]);
    expect(readmeRows()).toEqual(expected);
  });

  it('spells every code as dotted lower snake case', () => {
    for (const code of CODES) expect(code).toMatch(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/);
  });

  it('gives a GatewayError the type of its code', () => {
    const error = new GatewayError('payment.asset_mismatch', 'payment asset does not match', {}, { cause: 'why' });
    expect(error).toMatchObject({ code: 'payment.asset_mismatch', type: 'bad_request', message: 'payment asset does not match', cause: 'why' });
  });
});
