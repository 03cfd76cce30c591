import { Injectable, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ESCROW_ERRORS } from '../../../../libs/escrow';
import { GatewayConfig } from '../../../config/gateway-config';
import { AppLogger } from '../../../logging/app-logger';
import { ClaimBreaker, type BreakerState } from '../domain/claim-breaker';
import { BudgetReservations } from '../ports/budget-reservations';
import { EscrowChain, type ClaimSendOutcome } from '../ports/escrow-chain';
import { EscrowClaims, type EscrowClaim } from '../ports/escrow-claims';
import { FeePayers } from '../ports/fee-payers';
import { PaymentChain } from '../ports/payment-chain';
import { ReceiptStore } from '../ports/receipt-store';
import { PaymentMetrics } from './payment-metrics';
import { ReceiptOutbox } from './receipt-outbox';

/** The escrow program's EscrowExpired: a claim at or after the expiry slot. */
const ESCROW_EXPIRED = ESCROW_ERRORS.EscrowExpired;
/** Claims worked per pass. */
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

/**
 * Works the durable claim queue (docs/decisions.md, "Escrow"): every `GW_CLAIM_INTERVAL_MS` it
 * leases due claims (one instance per claim; a lapsed lease is due again) and, for each, asks the
 * chain about its last attempt first, then gives up on an expired escrow (the agent refunds it),
 * else builds a claim paid by a fee payer of the pool, records it, sends and confirms it. A landed
 * claim settles the receipt at the claimed amount; an RPC failure retries with exponential backoff,
 * rests the fee payer and counts toward the breaker; a claim the program rejects fails alone and,
 * when its escrow still exists (the agent's token account is the trouble), bars the agent from escrow.
 */
@Injectable()
export class EscrowClaimProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly breaker: ClaimBreaker;
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;

  constructor(
    private readonly config: GatewayConfig,
    private readonly paymentChain: PaymentChain,
    private readonly feePayers: FeePayers,
    private readonly budgets: BudgetReservations,
    private readonly outbox: ReceiptOutbox,
    private readonly metrics: PaymentMetrics,
    private readonly logger: AppLogger,
    @Optional() private readonly chain?: EscrowChain,
    @Optional() private readonly claims?: EscrowClaims,
    @Optional() private readonly receipts?: ReceiptStore,
  ) {
    logger.setContext(EscrowClaimProcessor.name);
    this.breaker = new ClaimBreaker(config.escrow.breakerWindowMs, config.escrow.breakerResetMs);
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
    if (!this.enabled || !claims || this.breaker.state(Date.now()) === 'open') return;
    const now = new Date();
    // Longer than a whole attempt (send, then the confirmation window) can take, so no other instance re-leases a claim mid-attempt.
    const leaseMs = this.config.settlement.leaseTtlMs + 2 * this.config.settlement.confirmMs;
    const leased = await claims.lease(BATCH, now, new Date(now.getTime() + leaseMs));
    for (const claim of leased) {
      if (this.breaker.state(Date.now()) === 'open') {
        await claims.retry(claim.id, new Date(Date.now() + this.config.escrow.breakerResetMs), 'claim breaker open');
        continue;
      }
      await this.work(claim).catch(async (err: unknown) => {
        this.logger.warn({ err, claim: claim.id }, 'claim attempt failed');
        this.breaker.record(false, Date.now());
        await this.retry(claim, 'rpc unavailable');
      });
    }
  }

  private async work(claim: EscrowClaim): Promise<void> {
    const chain = this.chain as EscrowChain;
    if (claim.claimSignature !== null && (await this.paymentChain.status(claim.claimSignature)) === 'confirmed') return this.landed(claim, claim.claimSignature);
    if ((await chain.slot()) >= claim.expirySlot) return this.failed(claim, 'the escrow expired before a claim landed; the agent refunds the deposit', false);
    const feePayer = this.feePayers.advertise();
    const prepared = feePayer === null ? null : await chain.claimTransaction(claim, feePayer);
    if (feePayer === null || prepared === null) return this.retry(claim, 'no fee payer can sign a claim');
    await (this.claims as EscrowClaims).recordAttempt(claim.id, prepared.signature);
    const outcome = await this.attempt(chain, prepared, feePayer);
    this.metrics.settlement(`escrow_claim_${outcome}`);
    if (outcome === 'landed') {
      this.breaker.record(true, Date.now());
      return this.landed(claim, prepared.signature);
    }
    if (outcome === 'rpc-failure') {
      this.breaker.record(false, Date.now());
      this.feePayers.markFailed(feePayer);
      return this.retry(claim, 'the claim did not land');
    }
    if (outcome === 'expired') return this.failed(claim, 'the escrow expired before the claim landed; the agent refunds the deposit', false);
    // Rejected by the program: if the escrow is gone it was refunded (or claimed); if it is still there, the agent's accounts refuse the claim.
    return this.failed(claim, 'the escrow program rejected the claim', await chain.escrowExists(claim.escrow));
  }

  private async attempt(chain: EscrowChain, prepared: { signedTransaction: string; signature: string }, feePayer: string): Promise<Attempt> {
    const sent: ClaimSendOutcome = await chain.sendClaim(prepared);
    if (sent.kind === 'program-error') {
      this.logger.warn({ code: sent.code, detail: sent.detail, fee_payer: feePayer }, 'escrow program rejected a claim');
      return sent.code === ESCROW_EXPIRED ? 'expired' : 'rejected';
    }
    if (sent.kind === 'rejected') {
      this.logger.warn({ detail: sent.detail }, 'claim refused by the node');
      return 'rpc-failure';
    }
    const outcome = await this.paymentChain.confirm(prepared.signature, this.config.settlement.confirmMs);
    if (outcome === 'confirmed') return 'landed';
    return outcome === 'failed' ? 'rejected' : 'rpc-failure';
  }

  private async landed(claim: EscrowClaim, signature: string): Promise<void> {
    if (!(await (this.claims as EscrowClaims).complete(claim.id, signature))) return;
    this.logger.info({ receipt: claim.receiptId, claimed: claim.claimAtomic.toString(), deposit: claim.depositAtomic.toString() }, 'escrow claimed');
    await this.finishReceipt(claim.receiptId, { status: 'settled', amountChargedAtomic: claim.claimAtomic, settledAt: new Date(), claimSignature: signature });
  }

  private async failed(claim: EscrowClaim, reason: string, barAgent: boolean): Promise<void> {
    const claims = this.claims as EscrowClaims;
    if (!(await claims.fail(claim.id, reason))) return;
    this.logger.warn({ receipt: claim.receiptId, reason, barred: barAgent ? claim.agent : undefined }, 'escrow claim failed; the deposit refunds to the agent at expiry');
    if (barAgent) await claims.bar(claim.agent, reason, new Date());
    await this.finishReceipt(claim.receiptId, { status: 'failed', amountChargedAtomic: 0n, settledAt: null });
  }

  private async retry(claim: EscrowClaim, reason: string): Promise<void> {
    const wait = Math.min(this.config.escrow.claimRetryBaseMs * 2 ** claim.attempts, MAX_RETRY_MS);
    await (this.claims as EscrowClaims).retry(claim.id, new Date(Date.now() + wait), reason);
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
