import { randomUUID } from 'node:crypto';
import { Injectable, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ESCROW_ERRORS } from '../../../../libs/escrow';
import { GatewayConfig } from '../../../config/gateway-config';
import { AppLogger } from '../../../logging/app-logger';
import { ClaimBreaker, type BreakerState } from '../domain/claim-breaker';
import { CLAIM_FEE_LAMPORTS } from '../domain/escrow-minimum';
import { BudgetReservations } from '../ports/budget-reservations';
import { EscrowChain, type ClaimSendOutcome } from '../ports/escrow-chain';
import { EscrowClaims, type EscrowClaim } from '../ports/escrow-claims';
import { FeePayers } from '../ports/fee-payers';
import { PaymentChain, type PreparedTransaction } from '../ports/payment-chain';
import { ReceiptStore } from '../ports/receipt-store';
import { EscrowClaimFees } from './escrow-claim-fees';
import { PaymentMetrics } from './payment-metrics';
import { ReceiptOutbox } from './receipt-outbox';

/** The escrow program's EscrowExpired: a claim at or after the expiry slot. */
const ESCROW_EXPIRED = ESCROW_ERRORS.EscrowExpired;
/** Claims worked per pass, one after another, each on its own lease. */
const BATCH = 10;
/** The longest wait between two attempts of one claim. */
const MAX_RETRY_MS = 300_000;

/** What the health route reports about the processor. */
export interface ClaimProcessorState {
  running: boolean;
  breaker: BreakerState;
  /** When the open breaker lets claims through again. */
  breakerOpenUntil: Date | null;
  samples: number;
  failures: number;
}

type Attempt = 'landed' | 'rpc-failure' | 'rejected' | 'expired';

/** What the chain says of a claim: one of its attempts landed; wait (one may still land); it can never land; or its escrow is open to a new attempt. */
type ClaimOnChain = { kind: 'landed'; signature: string } | { kind: 'wait'; reason: string } | { kind: 'failed'; reason: string } | { kind: 'open' };

/**
 * Works the durable claim queue (docs/decisions.md, "Escrow"): every `GW_CLAIM_INTERVAL_MS` it
 * leases due claims one at a time, each on its own lease renewed while it is worked (a lease that
 * lapses makes the claim due again elsewhere, and every move names its holder). For each it reads
 * the chain first: every attempt sent so far, so a claim that landed late is found whatever came
 * after it; then whether the escrow still exists and has not expired. Only then does it send a new
 * claim (paid by a fee payer of the pool, its signature recorded before the send), and it writes
 * the receipt, the budget and the metrics only from what the chain says. An RPC failure retries
 * with exponential backoff and counts toward the breaker; a claim the program rejects while its
 * escrow still exists fails alone and bars the agent from escrow.
 */
@Injectable()
export class EscrowClaimProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly holder = randomUUID();
  private readonly breaker: ClaimBreaker;
  private readonly leaseMs: number;
  private readonly longestWorkMs: number;
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;

  constructor(
    private readonly config: GatewayConfig,
    private readonly paymentChain: PaymentChain,
    private readonly feePayers: FeePayers,
    private readonly budgets: BudgetReservations,
    private readonly claimFees: EscrowClaimFees,
    private readonly outbox: ReceiptOutbox,
    private readonly metrics: PaymentMetrics,
    private readonly logger: AppLogger,
    @Optional() private readonly chain?: EscrowChain,
    @Optional() private readonly claims?: EscrowClaims,
    @Optional() private readonly receipts?: ReceiptStore,
  ) {
    logger.setContext(EscrowClaimProcessor.name);
    this.breaker = new ClaimBreaker(config.escrow.breakerWindowMs, config.escrow.breakerResetMs);
    this.leaseMs = config.settlement.leaseTtlMs;
    // Its RPC calls (each bounded, src/adapters/solana/rpc-connection.ts) and its confirmation window, with room to spare.
    this.longestWorkMs = config.settlement.confirmMs + 30_000;
    if (claims && this.enabled) {
      metrics.escrowClaims(
        async () => {
          const counts = await claims.counts();
          return { pending: counts.pending, in_progress: counts.inProgress, completed: counts.completed, failed: counts.failed };
        },
        () => this.breaker.state(Date.now()) === 'open',
      );
    }
  }

  get enabled(): boolean {
    return this.config.solana.escrowProgramId !== null && this.chain !== undefined && this.claims !== undefined && this.receipts !== undefined;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.timer = setInterval(() => this.tick(), this.config.escrow.claimIntervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pass;
  }

  state(): ClaimProcessorState {
    const now = Date.now();
    const openUntil = this.breaker.openedUntil(now);
    return { running: this.timer !== null, breaker: this.breaker.state(now), breakerOpenUntil: openUntil === null ? null : new Date(openUntil), ...this.breaker.counts(now) };
  }

  private tick(): void {
    this.pass ??= this.runOnce()
      .catch((err: unknown) => this.logger.warn({ err }, 'claim pass failed; claims stay queued'))
      .finally(() => (this.pass = null));
  }

  /** One pass over due claims (the interval calls it; so do tests). Nothing while the breaker is open. */
  async runOnce(): Promise<void> {
    const claims = this.claims;
    if (!this.enabled || !claims) return;
    for (let worked = 0; worked < BATCH; worked++) {
      if (this.breaker.state(Date.now()) === 'open') return;
      const now = new Date();
      const claim = await claims.lease(now, this.holder, new Date(now.getTime() + this.leaseMs));
      if (!claim) return;
      await this.leased(claim, claims);
    }
  }

  /**
   * Works one claim, renewing its lease meanwhile: a slow RPC never lets it lapse under a live
   * worker. Renewal stops once the work has run longer than an attempt can (a worker stalled on
   * storage or the RPC then lets the lease lapse, so another instance takes the claim), and the
   * pass goes on without it: whatever the stalled work does later needs the lease it lost.
   */
  private async leased(claim: EscrowClaim, claims: EscrowClaims): Promise<void> {
    const renewal = setInterval(
      () => {
        claims.renew(claim.id, this.holder, new Date(Date.now() + this.leaseMs)).catch((err: unknown) => this.logger.warn({ err, claim: claim.id }, 'could not renew a claim lease'));
      },
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    renewal.unref();
    let stalled: NodeJS.Timeout | undefined;
    const longest = new Promise<'stalled'>((resolve) => {
      stalled = setTimeout(() => resolve('stalled'), this.longestWorkMs);
      stalled.unref();
    });
    const work = this.work(claim).catch(async (err: unknown) => {
      this.logger.warn({ err, claim: claim.id }, 'claim attempt failed');
      this.breaker.record(false, Date.now());
      await this.retry(claim, 'rpc unavailable');
    });
    try {
      if ((await Promise.race([work, longest])) === 'stalled') this.logger.error({ claim: claim.id }, 'claim work stalled; its lease is left to lapse');
    } finally {
      clearInterval(renewal);
      clearTimeout(stalled);
    }
  }

  private async work(claim: EscrowClaim): Promise<void> {
    const chain = this.chain as EscrowChain;
    const before = await this.onChain(claim);
    if (before.kind !== 'open') return this.conclude(claim, before);
    const feePayer = this.feePayers.advertise();
    const prepared = feePayer === null ? null : await chain.claimTransaction(claim, feePayer);
    if (feePayer === null || prepared === null) return this.retry(claim, 'no fee payer can sign a claim');
    // Recorded before the send, so whoever works the claim next asks the chain about it; a lost lease sends nothing.
    if (!(await (this.claims as EscrowClaims).recordAttempt(claim.id, this.holder, prepared.signature))) return;
    const attempted = { ...claim, claimSignatures: [...claim.claimSignatures, prepared.signature] };
    // The first attempt's fee was counted when the deposit was accepted; a further one counts its own.
    const outcome = await this.attempt(chain, prepared, feePayer, claim.claimSignatures.length > 0);
    this.metrics.settlement(`escrow_claim_${outcome}`);
    if (outcome === 'landed') {
      this.breaker.record(true, Date.now());
      return this.landed(attempted, prepared.signature);
    }
    if (outcome === 'rpc-failure') {
      this.breaker.record(false, Date.now());
      this.feePayers.markFailed(feePayer);
      return this.retry(attempted, 'the claim did not land');
    }
    // Refused by the program: perhaps because an attempt of ours landed meanwhile and closed the escrow, or the escrow expired.
    const after = await this.onChain(attempted);
    if (after.kind !== 'open') return this.conclude(attempted, after);
    // Still there, not expired, none of ours landed: the agent's own accounts refuse the claim.
    return this.failed(attempted, 'the escrow program rejected the claim', true);
  }

  /**
   * The escrow and the slot first, then every attempt sent so far (history searched): a claim of
   * ours that closes the escrow between the two reads is then seen landed. An escrow gone before
   * its expiry slot was claimed (a refund needs the slot reached), so it is waited for, never failed.
   */
  private async onChain(claim: EscrowClaim): Promise<ClaimOnChain> {
    const [slot, exists] = await Promise.all([this.paymentChain.slot(), (this.chain as EscrowChain).escrowExists(claim.escrow)]);
    const statuses = await this.paymentChain.statuses(claim.claimSignatures);
    const landed = statuses.indexOf('confirmed');
    if (landed >= 0) return { kind: 'landed', signature: claim.claimSignatures[landed] };
    if (statuses.includes('processing')) return { kind: 'wait', reason: 'an earlier claim is still being processed' };
    if (!exists && slot < claim.expirySlot) return { kind: 'wait', reason: 'the escrow closed before its expiry: a claim of ours landed that the chain does not show yet' };
    if (!exists) return { kind: 'failed', reason: 'the escrow closed with no claim of ours landed: the agent refunded it' };
    if (slot >= claim.expirySlot) return { kind: 'failed', reason: 'the escrow expired before a claim landed; the agent refunds the deposit' };
    return { kind: 'open' };
  }

  private conclude(claim: EscrowClaim, onChain: Exclude<ClaimOnChain, { kind: 'open' }>): Promise<void> {
    if (onChain.kind === 'landed') return this.landed(claim, onChain.signature);
    if (onChain.kind === 'wait') return this.retry(claim, onChain.reason, false);
    return this.failed(claim, onChain.reason, false);
  }

  private async attempt(chain: EscrowChain, prepared: PreparedTransaction, feePayer: string, countFee: boolean): Promise<Attempt> {
    const sent: ClaimSendOutcome = await chain.sendClaim(prepared);
    if (sent.kind === 'program-error') {
      this.logger.warn({ code: sent.code, detail: sent.detail, fee_payer: feePayer }, 'escrow program rejected a claim');
      return sent.code === ESCROW_EXPIRED ? 'expired' : 'rejected';
    }
    if (sent.kind === 'rejected') {
      this.logger.warn({ detail: sent.detail }, 'claim refused by the node');
      return 'rpc-failure';
    }
    // It reached the node (or may have): its fee counts toward the bound, whether or not it lands.
    if (countFee) await this.claimFees.record(CLAIM_FEE_LAMPORTS).catch((err: unknown) => this.logger.warn({ err }, 'could not count a claim fee'));
    const outcome = await this.paymentChain.confirm(prepared.signature, this.config.settlement.confirmMs);
    if (outcome === 'confirmed') return 'landed';
    return outcome === 'failed' ? 'rejected' : 'rpc-failure';
  }

  private async landed(claim: EscrowClaim, signature: string): Promise<void> {
    if (!(await (this.claims as EscrowClaims).complete(claim.id, this.holder, signature))) return;
    this.logger.info({ receipt: claim.receiptId, claimed: claim.claimAtomic.toString(), deposit: claim.depositAtomic.toString() }, 'escrow claimed');
    await this.finishReceipt(claim.receiptId, { status: 'settled', amountChargedAtomic: claim.claimAtomic, settledAt: new Date(), claimSignature: signature });
  }

  private async failed(claim: EscrowClaim, reason: string, barAgent: boolean): Promise<void> {
    const claims = this.claims as EscrowClaims;
    if (!(await claims.fail(claim.id, this.holder, reason))) return;
    this.logger.warn({ receipt: claim.receiptId, reason, barred: barAgent ? claim.agent : undefined }, 'escrow claim failed; the deposit goes back to the agent');
    if (barAgent) await claims.bar(claim.agent, reason, new Date());
    await this.finishReceipt(claim.receiptId, { status: 'failed', amountChargedAtomic: 0n, settledAt: null });
  }

  /** Back in the queue after its backoff; `counted` false for a wait that is no failure (an attempt still being processed). */
  private async retry(claim: EscrowClaim, reason: string, counted = true): Promise<void> {
    const wait = counted ? Math.min(this.config.escrow.claimRetryBaseMs * 2 ** claim.attempts, MAX_RETRY_MS) : this.config.escrow.claimRetryBaseMs;
    await (this.claims as EscrowClaims).retry(claim.id, this.holder, new Date(Date.now() + wait), reason);
  }

  private async finishReceipt(receiptId: string, outcome: { status: 'settled' | 'failed'; amountChargedAtomic: bigint; settledAt: Date | null; claimSignature?: string }): Promise<void> {
    const receipts = this.receipts as ReceiptStore;
    await this.outbox.write(`receipt ${receiptId}: ${outcome.status}`, async () => {
      if (!(await receipts.complete(receiptId, outcome))) return;
      this.metrics.settlement(outcome.status);
      await this.budgets.follow(receiptId, outcome.status, outcome.status === 'settled' ? outcome.amountChargedAtomic : undefined);
    });
  }
}
