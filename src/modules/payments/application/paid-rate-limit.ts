import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { RateLimiter } from '../../rate-limits/application/rate-limiter';
import { clientNetwork } from '../../rate-limits/domain/client-network';
import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';

/** Spec 8: clients that cannot be identified share one bucket of this size. */
const UNKNOWN_CLIENT_LIMIT = 10;
const PAYMENT_ATTEMPTS_PER_LIMIT = 4;

/**
 * The paid rate limit (spec 8): GW_RATE_LIMIT_MAX per 60 s per payer wallet, taken from a
 * transaction whose signature verified (so nobody can exhaust another wallet's bucket); requests
 * without a verified wallet (quotes) count per client network (docs/decisions.md, "One client identity").
 */
@Injectable()
export class PaidRateLimit {
  private readonly limit: number;

  constructor(
    private readonly limiter: RateLimiter,
    config: GatewayConfig,
  ) {
    this.limit = config.limits.rateLimitMax;
  }

  admitWallet(wallet: string): Promise<RateDecision> {
    return this.limiter.admit([{ key: `paid:wallet:${wallet}`, limit: this.limit }]);
  }

  /**
   * Every payment-bearing request, before any work on it (the guard, the decoding, the chain
   * look-ups): a fresh key pair per request passes the wallet limit, and a junk header would
   * otherwise buy guard runs, so this work is bounded per client address too, at
   * PAYMENT_ATTEMPTS_PER_LIMIT times the paid limit (room for retries beside honest traffic).
   */
  admitAttempt(clientAddress: string): Promise<RateDecision> {
    return this.limiter.admit([{ key: `paid:attempt:${clientNetwork(clientAddress)}`, limit: this.limit * PAYMENT_ATTEMPTS_PER_LIMIT }]);
  }

  admitClient(clientAddress: string): Promise<RateDecision> {
    return this.limiter.admit([clientAddress === 'unknown' ? { key: 'paid:ip:unknown', limit: UNKNOWN_CLIENT_LIMIT } : { key: `paid:ip:${clientNetwork(clientAddress)}`, limit: this.limit }]);
  }
}
