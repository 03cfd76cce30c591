import { Secret } from '../config/secret';
import { isAdminAuthorization } from './admin-token';

describe('isAdminAuthorization', () => {
  const token = new Secret('s3cret-admin-token-value');

  it('accepts the exact bearer token, the scheme in any case', () => {
    expect(isAdminAuthorization('Bearer s3cret-admin-token-value', token)).toBe(true);
    expect(isAdminAuthorization('bearer s3cret-admin-token-value', token)).toBe(true);
  });

  it.each([
    ['a missing header', undefined],
    ['an empty header', ''],
    ['another scheme', 'Basic s3cret-admin-token-value'],
    ['the bare token', 's3cret-admin-token-value'],
    ['a prefix of the token', 'Bearer s3cret-admin-token'],
    ['the token with a suffix', 'Bearer s3cret-admin-token-valueX'],
    ['a token differing in case', 'Bearer S3CRET-ADMIN-TOKEN-VALUE'],
    ['two tokens', 'Bearer s3cret-admin-token-value s3cret-admin-token-value'],
  ])('refuses %s', (_label, header) => {
    expect(isAdminAuthorization(header, token)).toBe(false);
  });

  it('refuses everything while no token is configured', () => {
    expect(isAdminAuthorization('Bearer anything', null)).toBe(false);
  });
});
