import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { RateLimiter } from '../../rate-limits/application/rate-limiter';
import { UnpaidBudget } from '../../rate-limits/application/unpaid-budget';
import { clientNetwork } from '../../rate-limits/domain/client-network';
import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';

/** Spec 8: clients that cannot be identified share one small free bucket. */
const UNKNOWN_CLIENT_LIMIT = 2;

/**
 * The free tier's gates, in the spec's order (8): the client's window (GW_FREE_TIER_RATE_LIMIT per
 * client network: docs/decisions.md, "One client identity"), the client's unpaid budget in body
 * bytes (free requests count), then the global cap (GW_FREE_TIER_GLOBAL_RPM, shared through Redis when configured).
 */
@Injectable()
export class FreeTierLimit {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly unpaid: UnpaidBudget,
    private readonly config: GatewayConfig,
  ) {}

  /** `bodyBytes`: the request's body, counted in the unpaid budget unless it already was (0). */
  admit(clientAddress: string, bodyBytes: number): Promise<RateDecision> {
    const { freeTierRateLimit, freeTierGlobalRpm } = this.config.limits;
    const unpaid = this.unpaid.bucket(clientAddress, bodyBytes);
    return this.limiter.admit([
      clientAddress === 'unknown' ? { key: 'free:ip:unknown', limit: UNKNOWN_CLIENT_LIMIT } : { key: `free:ip:${clientNetwork(clientAddress)}`, limit: freeTierRateLimit },
      ...(unpaid ? [unpaid] : []),
      { key: 'free:global', limit: freeTierGlobalRpm },
    ]);
  }
}
