import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../config/gateway-config';
import type { Secret } from '../config/secret';
import { GatewayError } from '../errors/gateway-error';
import { RateLimitMetrics } from '../modules/rate-limits/application/rate-limit-metrics';
import { WINDOW_MS } from '../modules/rate-limits/application/rate-limiter';
import { clientNetwork } from '../modules/rate-limits/domain/client-network';
import { RATE_LIMITED_MESSAGE, rateLimitHeaders } from '../modules/rate-limits/domain/rate-limit-headers';
import { RateLimitStore, type RateDecision } from '../modules/rate-limits/ports/rate-limit-store';

const ADMIN_FAILURES = 'admin:failures';

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

/** Wrong admin tokens a client network may present per window before admin routes answer 429. */
export const ADMIN_FAILURES_PER_WINDOW = 10;

/** What an `Authorization` header says about the admin token. */
export type AdminVerdict = { kind: 'admin' } | { kind: 'absent' } | { kind: 'wrong' } | { kind: 'throttled'; decision: RateDecision };

/**
 * Wrong admin tokens are counted per client network (ADMIN_FAILURES_PER_WINDOW a minute, shared
 * through Redis when configured); past the bound every admin token from that network, right or
 * wrong, is throttled for the rest of the window, so guessing on learns nothing
 * (docs/decisions.md, "Wrong admin tokens"). The window is checked before the comparison and
 * counted after a wrong one.
 */
@Injectable()
export class AdminTokenThrottle {
  constructor(
    private readonly config: GatewayConfig,
    private readonly store: RateLimitStore,
    private readonly metrics: RateLimitMetrics,
  ) {}

  async verify(authorization: string | undefined, clientAddress: string): Promise<AdminVerdict> {
    if (bearerToken(authorization) === null || !this.config.adminToken) return { kind: 'absent' };
    const key = `${ADMIN_FAILURES}:${clientNetwork(clientAddress)}`;
    const window = await this.store.preview(key, ADMIN_FAILURES_PER_WINDOW, WINDOW_MS);
    if (!window.allowed) return { kind: 'throttled', decision: window };
    if (isAdminAuthorization(authorization, this.config.adminToken)) return { kind: 'admin' };
    await this.store.hit(key, ADMIN_FAILURES_PER_WINDOW, WINDOW_MS);
    return { kind: 'wrong' };
  }

  /** The 429 of a throttled network, with the spec's rate-limit headers. */
  refusal(decision: RateDecision): GatewayError {
    this.metrics.rejected(ADMIN_FAILURES);
    return new GatewayError('rate_limit.exceeded', RATE_LIMITED_MESSAGE, rateLimitHeaders(decision));
  }
}
