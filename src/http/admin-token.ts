import { createHash, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../config/secret';

/**
 * True when `authorization` is `Bearer <token>` with the configured admin token. Both sides are
 * hashed first so the comparison is constant-time whatever their lengths.
 */
export function isAdminAuthorization(authorization: string | undefined, token: Secret | null): boolean {
  if (!token || authorization === undefined) return false;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  if (!match) return false;
  return timingSafeEqual(sha256(match[1]), sha256(token.reveal()));
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
