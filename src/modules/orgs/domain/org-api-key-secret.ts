import { createHash, randomBytes } from 'node:crypto';

/** A new key: `gwk_` and 32 random bytes as base64url (43 characters), shown once; only its SHA-256 is kept. */
export function newOrgApiKeySecret(): { secret: string; hash: Buffer } {
  const secret = `gwk_${randomBytes(32).toString('base64url')}`;
  return { secret, hash: createHash('sha256').update(secret).digest() };
}
