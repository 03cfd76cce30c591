import { Injectable, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { AppLogger } from '../../../logging/app-logger';
import { CLAIM_FEE_LAMPORTS } from '../domain/escrow-minimum';
import { paymentErrors } from '../domain/payment-errors';
import { EscrowChain } from '../ports/escrow-chain';
import { EscrowClaims } from '../ports/escrow-claims';
import { SponsorshipLedger } from '../ports/sponsorship-ledger';
import type { PaymentHold } from './payment-hold';
import { PaymentMetrics } from './payment-metrics';

/** The ledger counter of claim fees, beside the sponsored payments' counters of the same window. */
const CLAIM_FEES = 'escrow-claims';
/** A claim is always counted: claims for answers already served are sent whatever the bound. */
const UNBOUNDED = 2n ** 63n - 1n;
/** How often the counter is re-read, so claims landed by other instances count here too. */
const REFRESH_MS = 2_000;

/**
 * The bound on what escrow claims cost the gateway in network fees (docs/decisions.md, "Escrow"):
 * every deposit accepted counts its claim's fee in the sponsorship window (GW_SPONSOR_WINDOW_SECS),
 * atomically against GW_CLAIM_LAMPORTS_PER_HOUR and shared by instances through the sponsorship
 * ledger, and every further attempt of a claim counts its own; once one more claim would pass the
 * bound, new escrow offers and deposits stop until the window turns. Claims themselves never stop.
 */
@Injectable()
export class EscrowClaimFees implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private seen: { window: number; lamports: bigint } = { window: -1, lamports: 0n };
  private timer: NodeJS.Timeout | null = null;
  private readonly windowMs: number;
  private readonly bound: bigint;
  private readonly enabled: boolean;

  constructor(
    private readonly ledger: SponsorshipLedger,
    metrics: PaymentMetrics,
    private readonly logger: AppLogger,
    config: GatewayConfig,
    @Optional() chain?: EscrowChain,
    @Optional() claims?: EscrowClaims,
  ) {
    logger.setContext(EscrowClaimFees.name);
    this.windowMs = config.sponsorship.windowMs;
    this.bound = config.escrow.claimLamportsPerWindow;
    // As the other escrow gauges: only where escrow can be on (its chain and its claim queue exist).
    this.enabled = config.solana.escrowProgramId !== null && chain !== undefined && claims !== undefined;
    if (this.enabled) metrics.escrowClaimFees(() => ({ windowLamports: this.windowLamports(), suspended: this.suspended() }));
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  beforeApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * At a deposit's acceptance: the fee of its claim is counted now, against the bound, so deposits
   * accepted together cannot pass it together; 400 `payment.escrow_suspended` when it would pass.
   * Released when the deposit is given back unclaimed; kept once its answer began (the claim's
   * first attempt is then already counted).
   */
  async hold(): Promise<PaymentHold> {
    const window = this.window();
    const charge = await this.ledger.charge(window, [{ key: CLAIM_FEES, limit: this.bound }], CLAIM_FEE_LAMPORTS, this.windowMs);
    this.see(window, charge.totals[0]);
    if (!charge.charged) throw paymentErrors.escrowSuspended();
    let open = true;
    return {
      release: async () => {
        if (!open) return;
        open = false;
        await charge.refund();
        if (this.seen.window === window) this.see(window, this.seen.lamports > CLAIM_FEE_LAMPORTS ? this.seen.lamports - CLAIM_FEE_LAMPORTS : 0n);
      },
      landed: () => {
        open = false;
        return Promise.resolve();
      },
    };
  }

  /** A further claim attempt handed to the chain (the first was counted at acceptance): its fee counts, whether or not it lands, and whatever the bound. */
  async record(lamports: bigint): Promise<void> {
    const window = this.window();
    const charge = await this.ledger.charge(window, [{ key: CLAIM_FEES, limit: UNBOUNDED }], lamports, this.windowMs);
    this.see(window, charge.totals[0]);
  }

  /** Whether new escrow offers and deposits stop: one more claim would pass the window's bound. */
  suspended(): boolean {
    return this.windowLamports() + CLAIM_FEE_LAMPORTS > this.bound;
  }

  private windowLamports(): bigint {
    return this.seen.window === this.window() ? this.seen.lamports : 0n;
  }

  private window(): number {
    return Math.floor(Date.now() / this.windowMs);
  }

  private see(window: number, lamports: bigint): void {
    if (window < this.seen.window) return;
    const was = this.suspended();
    this.seen = { window, lamports };
    if (!was && this.suspended()) this.logger.warn({ lamports: lamports.toString() }, 'escrow claim fee bound reached: escrow is not offered until the window turns');
  }

  private async refresh(): Promise<void> {
    const window = this.window();
    try {
      this.see(window, await this.ledger.total(window, CLAIM_FEES));
    } catch (err) {
      this.logger.debug({ err }, 'could not read the escrow claim fee counter');
    }
  }
}
