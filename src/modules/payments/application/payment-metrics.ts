import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';

/** The sponsorship state a scrape reads. */
export interface SponsorshipGauges {
  windowLamports: bigint;
  exhausted: boolean;
}

/**
 * What operators watch for payments: accepted and refused, settled and failed, what is still pending, and the fees sponsored.
 * Its gauges read shared state (storage, Redis, the chain) or a flag, so across workers the largest value is the gateway's
 * where a sum would count it once per worker (docs/decisions.md, "Metrics across workers").
 */
@Injectable()
export class PaymentMetrics {
  private readonly payments: Counter<'outcome'>;
  private readonly settlements: Counter<'result'>;
  private readonly pendingReceipts: Gauge;
  private readonly pendingAge: Gauge;
  private readonly sponsoredLamports: Counter;
  private readonly sponsorshipRefusals: Counter<'bound'>;
  private readonly budgetRejections: Counter<'reason'>;
  private readonly channelOpens: Counter;
  private readonly channelDraws: Counter<'surface' | 'outcome'>;

  constructor(private readonly registry: Registry) {
    this.payments = new Counter({ name: 'gw_payments_total', help: 'Payment headers by outcome (accepted, or why refused)', labelNames: ['outcome'], registers: [registry] });
    this.settlements = new Counter({
      name: 'gw_settlements_total',
      help: 'Settlements of accepted payments: settled, not_charged (nothing delivered), or the failure',
      labelNames: ['result'],
      registers: [registry],
    });
    this.pendingReceipts = new Gauge({
      name: 'gw_settlement_pending_receipts',
      help: 'Receipts still pending at the last reconciler pass (at most one batch)',
      registers: [registry],
      aggregator: 'max',
    });
    this.pendingAge = new Gauge({
      name: 'gw_settlement_pending_age_seconds',
      help: 'Age of the oldest pending receipt at the last reconciler pass; 0 when none',
      registers: [registry],
      aggregator: 'max',
    });
    this.sponsoredLamports = new Counter({
      name: 'gw_sponsorship_charged_lamports_total',
      help: 'Network fees charged to the sponsorship bounds at acceptance, before refunds of payments never sent',
      registers: [registry],
    });
    this.sponsorshipRefusals = new Counter({
      name: 'gw_sponsorship_refusals_total',
      help: 'Sponsored payments refused, by the bound they met: priority, quote, wallet, client, global',
      labelNames: ['bound'],
      registers: [registry],
    });
    this.channelOpens = new Counter({ name: 'gw_channel_opens_total', help: 'Channels opened (their funding landed)', registers: [registry] });
    this.channelDraws = new Counter({
      name: 'gw_channel_draws_total',
      help: 'Delivered channel draws by surface and outcome: recorded, race (a close moved the channel first: served free), error (the record failed)',
      labelNames: ['surface', 'outcome'],
      registers: [registry],
    });
    this.budgetRejections = new Counter({
      name: 'gw_budget_rejections_total',
      help: 'Payments refused by per-tenant budgets, by reason: exceeded (a window has too little left) or payer_budgeted (a budgeted wallet on a surface without budgets)',
      labelNames: ['reason'],
      registers: [registry],
    });
  }

  /** Gauges read at each scrape: this window's sponsored fees (all instances, as last seen) and whether the global bound is reached. */
  sponsorship(read: () => SponsorshipGauges): void {
    new Gauge({
      name: 'gw_sponsorship_window_lamports',
      help: 'Network fees sponsored in the current window (GW_SPONSOR_WINDOW_SECS, an hour), all instances',
      registers: [this.registry],
      aggregator: 'max',
      collect() {
        this.set(Number(read().windowLamports));
      },
    });
    new Gauge({
      name: 'gw_sponsorship_exhausted',
      help: '1 while the global sponsorship bound is reached: quotes advertise no fee payer',
      registers: [this.registry],
      aggregator: 'max',
      collect() {
        this.set(read().exhausted ? 1 : 0);
      },
    });
  }

  /** The escrow claim queue by status, and whether the claim breaker is open, read at each scrape. */
  escrowClaims(read: () => Promise<Readonly<Record<'pending' | 'in_progress' | 'completed' | 'failed', number>>>, breakerOpen: () => boolean): void {
    new Gauge({
      name: 'gw_escrow_claims',
      help: 'Escrow claims in the durable queue, by status',
      labelNames: ['status'],
      registers: [this.registry],
      aggregator: 'max',
      async collect() {
        for (const [status, count] of Object.entries(await read())) this.set({ status }, count);
      },
    });
    new Gauge({
      name: 'gw_escrow_claim_breaker_open',
      help: '1 while the escrow claim breaker is open: no claim is sent',
      registers: [this.registry],
      aggregator: 'max',
      collect() {
        this.set(breakerOpen() ? 1 : 0);
      },
    });
  }

  /** The channels' close jobs by status and custody's USDC balance, read at each scrape (a balance that cannot be read keeps its last value). */
  channels(read: { closeJobs: () => Promise<Readonly<Record<'pending' | 'in_progress' | 'completed', number>>>; custodyBalance: () => Promise<bigint | null> }): void {
    new Gauge({
      name: 'gw_channel_close_jobs',
      help: 'Channel close jobs, by status',
      labelNames: ['status'],
      registers: [this.registry],
      aggregator: 'max',
      async collect() {
        for (const [status, count] of Object.entries(await read.closeJobs())) this.set({ status }, count);
      },
    });
    new Gauge({
      name: 'gw_channel_custody_balance_atomic',
      help: "The channel custody wallet's USDC balance, atomic units",
      registers: [this.registry],
      aggregator: 'max',
      async collect() {
        const balance = await read.custodyBalance();
        if (balance !== null) this.set(Number(balance));
      },
    });
  }

  /** Gauges read at each scrape: this window's escrow claim fees (all instances, as last seen) and whether new escrow offers stop. */
  escrowClaimFees(read: () => { windowLamports: bigint; suspended: boolean }): void {
    new Gauge({
      name: 'gw_escrow_claim_fees_window_lamports',
      help: 'Network fees of escrow claims sent in the current window (GW_SPONSOR_WINDOW_SECS), all instances',
      registers: [this.registry],
      aggregator: 'max',
      collect() {
        this.set(Number(read().windowLamports));
      },
    });
    new Gauge({
      name: 'gw_escrow_offer_suspended',
      help: '1 while escrow claim fees have reached GW_CLAIM_LAMPORTS_PER_HOUR: escrow is not offered and new deposits are refused',
      registers: [this.registry],
      aggregator: 'max',
      collect() {
        this.set(read().suspended ? 1 : 0);
      },
    });
  }

  /** A gauge per fee payer, read from the chain at each scrape; a balance that cannot be read keeps its last value. */
  feePayerBalances(read: () => Promise<ReadonlyArray<{ address: string; lamports: bigint | null }>>): void {
    new Gauge({
      name: 'gw_fee_payer_balance_lamports',
      help: "Each fee payer's SOL balance, in lamports",
      labelNames: ['fee_payer'],
      registers: [this.registry],
      aggregator: 'max',
      async collect() {
        for (const { address, lamports } of await read()) if (lamports !== null) this.set({ fee_payer: address }, Number(lamports));
      },
    });
  }

  pending(count: number, oldestAgeSecs: number): void {
    this.pendingReceipts.set(count);
    this.pendingAge.set(oldestAgeSecs);
  }

  payment(outcome: string): void {
    this.payments.inc({ outcome });
  }

  settlement(result: string): void {
    this.settlements.inc({ result });
  }

  channelOpened(): void {
    this.channelOpens.inc();
  }

  channelDraw(surface: string, outcome: 'recorded' | 'race' | 'error'): void {
    this.channelDraws.inc({ surface, outcome });
  }

  sponsored(lamports: bigint): void {
    this.sponsoredLamports.inc(Number(lamports));
  }

  budgetRejected(reason: 'exceeded' | 'payer_budgeted'): void {
    this.budgetRejections.inc({ reason });
  }

  sponsorshipRefused(bound: string): void {
    this.sponsorshipRefusals.inc({ bound });
  }
}
