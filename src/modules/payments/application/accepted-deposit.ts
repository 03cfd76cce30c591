import type { AnswerSpend, SpendRecorder } from '../../billing/application/spend-recorder';
import { encodePaymentResponseHeader, type Network } from '../../../../libs/x402';
import type { AppLogger } from '../../../logging/app-logger';
import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';
import { GatewayError } from '../../../errors/gateway-error';
import { paymentErrors } from '../domain/payment-errors';
import type { Delivery, Receipt, ReceiptOutcome } from '../domain/receipt';
import type { BudgetReservations } from '../ports/budget-reservations';
import type { VerifiedDeposit } from '../ports/escrow-chain';
import type { EscrowClaims } from '../ports/escrow-claims';
import type { ReceiptStore } from '../ports/receipt-store';
import type { ReplayStore } from '../ports/replay-store';
import type { Settlement } from './settlement';
import type { PaidPayment } from './paid-payment';
import type { PaymentHold } from './payment-hold';
import type { PaymentMetrics } from './payment-metrics';
import type { ReceiptOutbox } from './receipt-outbox';

export interface DepositCollaborators {
  receipts: ReceiptStore;
  claims: EscrowClaims;
  budgets: BudgetReservations;
  replay: ReplayStore;
  outbox: ReceiptOutbox;
  metrics: PaymentMetrics;
  logger: AppLogger;
  network: Network;
  /**
   * How long after its first content a claim waits before any instance may work it, unless its
   * answer ends first: the longest answer (GW_STREAM_MAX_SECS), its confirmation and the shutdown
   * grace. A claim still waiting then belongs to an instance that died mid-answer.
   */
  claimDueMs: number;
  spend: SpendRecorder;
}

/**
 * An escrow deposit that settled on chain before serving (spec 3.2, docs/decisions.md, "Escrow").
 * Until its answer's first content it is bounded like an `exact` payment (`broadcasted` is false):
 * a timeout or shutdown releases it, nothing claimed. At the first content its claim row is written,
 * durable before any content leaves, for the quote and due once the answer could no longer be
 * running; when the answer ends, the claim becomes the real cost (never above the quote), due at
 * once. The receipt stays `pending` until the claim lands.
 */
export class AcceptedDeposit implements PaidPayment {
  readonly scheme = 'escrow';
  readonly settlesAt = 'deposit_before_serving';
  readonly holdsContentUntilLanded = false;
  private phase: 'accepted' | 'serving' | 'released' = 'accepted';

  constructor(
    readonly deposit: VerifiedDeposit,
    readonly receipt: Receipt,
    readonly rateLimit: RateDecision,
    /** Its claim's fee, counted against the claim-fee bound at acceptance. */
    private readonly claimFee: PaymentHold,
    private readonly deps: DepositCollaborators,
  ) {}

  get payer(): string {
    return this.deposit.agent;
  }

  get amountPaid(): bigint {
    return this.deposit.amount;
  }

  get receiptId(): string {
    return this.receipt.id;
  }

  get receiptPath(): string {
    return `/v1/receipts/${this.receipt.id}`;
  }

  get replayKey(): string {
    return this.deposit.replayKey;
  }

  get transactionSignature(): string {
    return this.deposit.signature;
  }

  /** Whether its answer has begun: from then on its claim is owed and nothing un-charges it. */
  get broadcasted(): boolean {
    return this.phase === 'serving';
  }

  /** The deposit has landed: no blockhash can expire under it any more. */
  whenExpiring(): () => void {
    return () => undefined;
  }

  /** Nothing delivered: no claim; the receipt says so, the budget reservation goes, the deposit refunds at expiry. */
  async release(): Promise<void> {
    if (this.phase !== 'accepted') return;
    this.phase = 'released';
    await Promise.all([this.complete({ status: 'not_charged', amountChargedAtomic: 0n, settledAt: null }), this.claimFee.release()]);
  }

  /**
   * The answer's first content is going out: its claim is written first, for the quote (what an
   * answer cut short, or whose instance died, is claimed for). Throws when it cannot be written, or
   * when the receipt was already ended unclaimed: then no content may leave.
   */
  async broadcast(): Promise<void> {
    if (this.phase !== 'accepted') throw new Error(`deposit ${this.phase}: its answer cannot begin`);
    this.phase = 'serving';
    const { deposit } = this;
    let opened: boolean;
    try {
      opened = await this.deps.claims.open(
        {
          receiptId: this.receipt.id,
          escrow: deposit.escrow,
          agent: deposit.agent,
          serviceId: deposit.serviceId,
          depositAtomic: deposit.amount,
          claimAtomic: this.ceiling(),
          expirySlot: deposit.expirySlot,
        },
        new Date(Date.now() + this.deps.claimDueMs),
      );
    } catch (err) {
      // The row may have been written all the same (the answer to its write lost): it is withdrawn with the receipt, at once or once storage is back.
      this.deps.logger.error({ err, receipt: this.receipt.id }, 'could not write the escrow claim; the answer is not served');
      this.phase = 'released';
      await Promise.all([this.withdraw(), this.claimFee.release()]);
      throw new GatewayError('receipt.storage_unavailable', 'receipt storage is unavailable; nothing will be claimed, and the deposit goes back to the agent at its expiry');
    }
    if (!opened) {
      // The reconciler ended the receipt unclaimed meanwhile (its answer was too late to begin).
      this.phase = 'released';
      await this.claimFee.release();
      throw paymentErrors.settlementFailed(this.receiptPath);
    }
    await this.claimFee.landed(true);
  }

  settled(): Promise<Settlement> {
    return Promise.resolve({
      status: 'settled',
      paymentResponse: encodePaymentResponseHeader({ success: true, transaction: this.deposit.signature, network: this.deps.network, payer: this.deposit.agent }),
    });
  }

  async firstContentResponse(): Promise<string | null> {
    return (await this.settled()).paymentResponse;
  }

  /** Landed before serving. */
  watchLanding(): Promise<Settlement['status']> {
    return Promise.resolve('settled');
  }

  async recordDelivery(delivery: Delivery): Promise<void> {
    const { receipts } = this.deps;
    await this.deps.outbox.write(`receipt ${this.receipt.id}: delivery`, () => receipts.recordDelivery(this.receipt.id, delivery));
  }

  holdFor(ttlMs: number): Promise<void> {
    return this.deps.replay.hold(this.deposit.replayKey, ttlMs);
  }

  /**
   * The answer ended: its claim becomes the real cost, due now; the claim processor lands it and
   * finishes the receipt. Never above the quote the agent agreed to (an agent may deposit more;
   * the gateway's estimate errs at its own risk, as with `exact`), and the quote when the usage is
   * unknown: the deposit, for an agent that deposited the quote (docs/decisions.md, "Escrow").
   */
  async charge(realCost: bigint | null, answer: AnswerSpend): Promise<bigint> {
    const charged = await this.claim(realCost);
    this.deps.spend.answer({ ...answer, payer: this.payer, charged });
    return charged;
  }

  unserved(err: unknown): unknown {
    return err;
  }

  private async claim(realCost: bigint | null): Promise<bigint> {
    if (this.phase !== 'serving') return 0n;
    const ceiling = this.ceiling();
    const claimAtomic = realCost === null || realCost > ceiling ? ceiling : realCost;
    let finalized = true;
    await this.deps.outbox.write(`escrow claim ${this.receipt.id}`, async () => {
      finalized = await this.deps.claims.finalize(this.receipt.id, claimAtomic, new Date());
      if (!finalized) this.deps.logger.warn({ receipt: this.receipt.id }, 'escrow claim already worked before its answer ended; it claims the quote');
    });
    // Already worked, its claim is for the quote; a write still queued claims the real cost once it lands.
    return finalized ? claimAtomic : ceiling;
  }

  private ceiling(): bigint {
    return this.receipt.amountQuotedAtomic < this.deposit.amount ? this.receipt.amountQuotedAtomic : this.deposit.amount;
  }

  /** Ends the receipt unclaimed and removes a claim row that may have been written, in one transaction (retried by the outbox). */
  private async withdraw(): Promise<void> {
    await this.deps.outbox.write(`escrow claim ${this.receipt.id}: withdrawn`, async () => {
      if (!(await this.deps.claims.withdraw(this.receipt.id))) return;
      this.deps.metrics.settlement('not_charged');
      await this.deps.budgets
        .follow(this.receipt.id, 'not_charged')
        .catch((err: unknown) => this.deps.logger.error({ err, receipt: this.receipt.id }, 'budget reservation could not follow its receipt'));
    });
  }

  private async complete(outcome: ReceiptOutcome): Promise<void> {
    const { receipts } = this.deps;
    await this.deps.outbox.write(`receipt ${this.receipt.id}: ${outcome.status}`, async () => {
      if (!(await receipts.complete(this.receipt.id, outcome))) return;
      this.deps.metrics.settlement(outcome.status);
      await this.deps.budgets
        .follow(this.receipt.id, outcome.status)
        .catch((err: unknown) => this.deps.logger.error({ err, receipt: this.receipt.id }, 'budget reservation could not follow its receipt'));
    });
  }
}
