import { Controller, Get, Optional } from '@nestjs/common';
import { AdminOnly } from '../../../http/admin.guard';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { RouteRateLimit } from '../../rate-limits/http/route-rate-limit.guard';
import { EscrowClaimProcessor } from '../application/escrow-claim-processor';
import { EscrowDeposits } from '../application/escrow-deposits';
import { PaymentChallenges } from '../application/payment-challenges';
import { expiryWindow } from '../domain/escrow-window';
import { SLOT_MS } from '../domain/solana-slot';
import { EscrowClaims } from '../ports/escrow-claims';
import { FeePayers } from '../ports/fee-payers';
import { PaymentChain } from '../ports/payment-chain';
import { GatewayConfig } from '../../../config/gateway-config';
import { ESCROW_CONFIG, ESCROW_HEALTH } from './payments-openapi';

export const ESCROW_CONFIG_RATE_LIMIT = 120;

/** The escrow scheme's public terms and its operators' health (spec 3.2, 4.10). */
@Controller('v1/escrow')
export class EscrowController {
  private readonly streamMaxMs: number;

  constructor(
    private readonly deposits: EscrowDeposits,
    private readonly processor: EscrowClaimProcessor,
    private readonly challenges: PaymentChallenges,
    private readonly feePayers: FeePayers,
    private readonly chain: PaymentChain,
    config: GatewayConfig,
    @Optional() private readonly claims?: EscrowClaims,
  ) {
    this.streamMaxMs = config.http.streamMaxMs;
  }

  /**
   * What a client needs to build a deposit the gateway accepts: the program, the provider, the mint,
   * the smallest quote escrow is taken for, whether it is taken now, and the expiry window. The
   * current slot is given even with escrow off (channel clients read it here). It reads the chain's
   * slot, so it is limited per client network.
   */
  @Get('config')
  @ApiAnswer(200, 'the escrow terms and the expiry window now', ESCROW_CONFIG)
  @RouteRateLimit('escrow-config', ESCROW_CONFIG_RATE_LIMIT)
  async config() {
    const { terms } = this.deposits;
    const { network, asset } = this.challenges.terms;
    // An unreachable chain leaves the slot and the window unknown; the terms still stand.
    const slot = await this.chain.slot().catch(() => null);
    const window = terms && slot !== null ? expiryWindow(slot, this.streamMaxMs) : null;
    return {
      enabled: terms !== null,
      offered: this.deposits.offered,
      min_atomic: this.deposits.minAtomic.toString(),
      program_id: terms?.programId ?? null,
      provider: terms?.provider ?? null,
      mint: asset,
      network,
      current_slot: slot === null ? null : Number(slot),
      slot_ms: SLOT_MS,
      expiry:
        window === null ? null : { min_slots_ahead: Number(window.minSlotsAhead), max_slots_ahead: Number(window.maxSlotsAhead), min_slot: Number(window.minSlot), max_slot: Number(window.maxSlot) },
    };
  }

  /** `down` while escrow is off; `degraded` while the claim processor is not running, no fee payer key is loaded, or the claim breaker is open. */
  @Get('health')
  @ApiAnswer(200, 'the claim queue, fee payers and the claim breaker', ESCROW_HEALTH)
  @AdminOnly('unavailable')
  async health() {
    const processor = this.processor.state();
    const feePayerWallets = this.feePayers.addresses().length;
    const counts = this.deposits.terms && this.claims ? await this.claims.counts() : null;
    const status = counts === null ? 'down' : !processor.running || feePayerWallets === 0 || processor.breaker === 'open' ? 'degraded' : 'ok';
    return {
      status,
      claims: { failed: counts?.failed ?? 0, pending_in_queue: (counts?.pending ?? 0) + (counts?.inProgress ?? 0), completed: counts?.completed ?? 0 },
      fee_payer_wallets: feePayerWallets,
      breaker: { state: processor.breaker, open_until: processor.breakerOpenUntil?.toISOString() ?? null, samples: processor.samples, failures: processor.failures },
    };
  }
}
