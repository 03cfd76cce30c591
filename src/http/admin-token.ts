import { createHash, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../config/secret';

/**
 * True when `authorization` is `Bearer <token>` with the configured admin token. Both sides are
 * hashed first so the comparison is constant-time whatever their lengths.
 */
export function isAdminAuthorization(authorization: string | undefined, token: Secret | null): boolean {
  const presented = bearerToken(authorization);
  if (!token || presented === null) return false;
  return timingSafeEqual(sha256(presented), sha256(token.reveal()));
}

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(authorization: string | undefined): string | null {
  return (authorization !== undefined && /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)?.[1]) || null;
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
