import { Injectable, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { GatewayConfig, type SponsorshipConfig } from '../../../config/gateway-config';
import { AppLogger } from '../../../logging/app-logger';
import { clientNetwork } from '../../rate-limits/domain/client-network';
import type { VerifiedTransfer } from '../domain/exact-payment';
import { paymentErrors } from '../domain/payment-errors';
import { FeePayers } from '../ports/fee-payers';
import { PaymentChain } from '../ports/payment-chain';
import { SponsorshipLedger, type SponsorshipBound } from '../ports/sponsorship-ledger';
import type { PaymentHold } from './payment-hold';
import { PaymentMetrics } from './payment-metrics';

/** The cheapest sponsored payment: the fee payer's and the payer's signatures. Less than this left in the window sponsors nothing. */
const MIN_SPONSORED_FEE_LAMPORTS = 10_000n;
/** How often the global counter is re-read, so a bound reached through other instances shows here too. */
const REFRESH_MS = 2_000;
const GLOBAL = 'global';
const BOUND_NAMES = ['global', 'wallet', 'client'] as const;

/**
 * Bounded sponsorship of network fees (docs/decisions.md, "Bounded sponsorship"): a sponsored
 * payment's fee (base plus priority) is charged at acceptance to the global, payer-wallet and
 * client-address counters of the current window, all or nothing; a payment never sent gives its
 * charge back, one that landed (even with an error) keeps it. Quotes below GW_SPONSOR_MIN_ATOMIC,
 * or made while the global bound is reached, advertise no fee payer. Client-paid payments are
 * never bounded here.
 */
@Injectable()
export class FeeSponsorship implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly bounds: SponsorshipConfig;
  /** The global counter as last seen, for the window it belongs to. */
  private global: { window: number; lamports: bigint } = { window: -1, lamports: 0n };
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly feePayers: FeePayers,
    private readonly ledger: SponsorshipLedger,
    chain: PaymentChain,
    private readonly metrics: PaymentMetrics,
    private readonly logger: AppLogger,
    config: GatewayConfig,
    @Optional() private readonly now: () => number = Date.now,
  ) {
    logger.setContext(FeeSponsorship.name);
    this.bounds = config.sponsorship;
    metrics.sponsorship(() => this.state());
    metrics.feePayerBalances(() => Promise.all(feePayers.addresses().map(async (address) => ({ address, lamports: await chain.lamports(address).catch(() => null) }))));
  }

  onApplicationBootstrap(): void {
    if (!this.offered()) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  beforeApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The fee payer a challenge for `quote` advertises, or null when that payment would not be sponsored. */
  feePayerFor(quote: bigint): string | null {
    if (!this.offered() || quote < this.bounds.minQuoteAtomic || this.exhausted()) return null;
    return this.feePayers.advertise();
  }

  /** Whether the global bound of the current window is reached (sponsorship not offered: never). */
  exhausted(): boolean {
    const { window, lamports } = this.global;
    return this.offered() && window === this.window() && lamports + MIN_SPONSORED_FEE_LAMPORTS > this.bounds.lamportsPerWindow;
  }

  /** For metrics and health. */
  state(): { configured: boolean; windowLamports: bigint; exhausted: boolean } {
    const windowLamports = this.global.window === this.window() ? this.global.lamports : 0n;
    return { configured: this.offered(), windowLamports, exhausted: this.exhausted() };
  }

  /** Fee payer keys, and a global bound above zero (an operator's way to turn sponsorship off). */
  private offered(): boolean {
    return this.bounds.lamportsPerWindow > 0n && this.feePayers.addresses().length > 0;
  }

  /**
   * The bounds a payment is judged by before anything is claimed: null when it is client-paid or
   * within them, else the 402 telling the payer to pay its fee itself.
   */
  refusal(transfer: VerifiedTransfer, quote: bigint): Error | null {
    if (transfer.layout !== 'sponsored') return null;
    if (quote < this.bounds.minQuoteAtomic) return this.refuse('quote', `quotes below ${this.bounds.minQuoteAtomic} atomic USDC are not sponsored`);
    if (transfer.priorityFeeLamports > this.bounds.maxPriorityLamports) {
      return this.refuse('priority', `a priority fee of ${transfer.priorityFeeLamports} lamports is above the ${this.bounds.maxPriorityLamports} sponsored per payment`);
    }
    return null;
  }

  /** Charges a sponsored payment's fee to the window's counters; throws the 402 when a bound would pass. Null for a client-paid payment. */
  async hold(transfer: VerifiedTransfer, clientAddress: string): Promise<PaymentHold | null> {
    if (transfer.layout !== 'sponsored') return null;
    const window = this.window();
    const bounds: SponsorshipBound[] = [
      { key: GLOBAL, limit: this.bounds.lamportsPerWindow },
      { key: `wallet:${transfer.payer}`, limit: this.bounds.walletLamportsPerWindow },
      { key: `client:${clientNetwork(clientAddress)}`, limit: this.bounds.walletLamportsPerWindow },
    ];
    const lamports = transfer.networkFeeLamports;
    const charge = await this.ledger.charge(window, bounds, lamports, this.bounds.windowMs);
    this.seeGlobal(window, charge.totals[0]);
    if (!charge.charged) {
      const bound = BOUND_NAMES[charge.refusedBy];
      throw this.refuse(
        bound,
        bound === 'global' ? 'the gateway has sponsored all the fees it will this hour' : `this ${bound === 'wallet' ? 'wallet' : 'client'} has used its sponsored fees for this hour`,
      );
    }
    this.metrics.sponsored(lamports);
    let open = true;
    return {
      release: async () => {
        if (!open) return;
        open = false;
        await charge.refund();
        this.seeGlobal(window, this.global.window === window && this.global.lamports > lamports ? this.global.lamports - lamports : 0n);
      },
      landed: () => {
        open = false;
        return Promise.resolve();
      },
    };
  }

  private refuse(bound: string, why: string): Error {
    this.metrics.sponsorshipRefused(bound);
    return paymentErrors.notSponsored(why);
  }

  private window(): number {
    return Math.floor(this.now() / this.bounds.windowMs);
  }

  private seeGlobal(window: number, lamports: bigint): void {
    // A release, hold or refresh that began in a window since turned must not replace the newer window's view.
    if (window < this.global.window) return;
    const wasExhausted = this.exhausted();
    this.global = { window, lamports };
    if (!wasExhausted && this.exhausted()) this.logger.warn({ lamports: lamports.toString() }, 'sponsored fee bound reached: quotes advertise no fee payer until the window turns');
  }

  private async refresh(): Promise<void> {
    const window = this.window();
    try {
      this.seeGlobal(window, await this.ledger.total(window, GLOBAL));
    } catch (err) {
      this.logger.debug({ err }, 'could not read the sponsored fee counter');
    }
  }
}
