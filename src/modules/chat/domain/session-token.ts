import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SessionClaims {
  /** The client's X-Session-Id, or one the gateway made up. */
  sid: string;
  /** The payer wallet the session's payments came from. */
  wallet: string;
  /** Issued at, seconds since the epoch. */
  iat: number;
}

const VERSION = 'v1';

/**
 * `x-gw-session` tokens on paid responses: `v1.<claims>.<mac>`, both parts base64url, the MAC an
 * HMAC-SHA256 over `v1.<claims>`. A client can hand one back to show which session and wallet its
 * earlier payments belong to; the gateway checks it in constant time.
 */
export class SessionTokenSigner {
  constructor(private readonly key: Uint8Array) {}

  sign(claims: SessionClaims): string {
    const body = `${VERSION}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The claims of a token this gateway signed, or null for anything else. */
  verify(token: string): SessionClaims | null {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) return null;
    const expected = this.mac(`${parts[0]}.${parts[1]}`);
    const given = Buffer.from(parts[2], 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as SessionClaims;
    } catch {
      return null;
    }
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}
