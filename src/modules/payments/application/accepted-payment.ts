import type { AppLogger } from '../../../logging/app-logger';
import type { AnswerSpend, SpendRecorder } from '../../billing/application/spend-recorder';
import { encodePaymentResponseHeader, type Network } from '../../../../libs/x402';
import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';
import type { VerifiedTransfer } from '../domain/exact-payment';
import { paymentErrors } from '../domain/payment-errors';
import type { Delivery, Receipt, ReceiptOutcome } from '../domain/receipt';
import type { BudgetReservations } from '../ports/budget-reservations';
import type { ConfirmOutcome, PaymentChain } from '../ports/payment-chain';
import type { ReplayStore } from '../ports/replay-store';
import type { ReceiptStore } from '../ports/receipt-store';
import type { BlockhashTracker } from './blockhash-tracker';
import type { PaymentHold } from './payment-hold';
import type { PaidPayment } from './paid-payment';
import type { PaymentMetrics } from './payment-metrics';
import type { ReceiptOutbox } from './receipt-outbox';
import type { Settlement } from './settlement';

export interface PaymentCollaborators {
  chain: PaymentChain;
  replay: ReplayStore;
  receipts: ReceiptStore | undefined;
  budgets: BudgetReservations;
  outbox: ReceiptOutbox;
  metrics: PaymentMetrics;
  logger: AppLogger;
  network: Network;
  confirmMs: number;
  blockhashes: BlockhashTracker;
  spend: SpendRecorder;
}

/**
 * A verified, claimed payment and its settlement lifecycle (docs/decisions.md, "Money moves exactly once (1 of 2)"): `release`
 * gives it back uncharged while it was never broadcast; `broadcast` hands it to the chain (at the
 * first content of the answer, or before serving a tool), after which nothing un-charges it;
 * `settled` is the confirmation. The receipt records every step; a write that fails is retried by
 * the outbox, never dropped.
 */
export class AcceptedPayment implements PaidPayment {
  readonly scheme = 'exact';
  /** `refused`: already on chain with no durable claim for it; the claim is kept, nothing is settled. */
  private phase: 'accepted' | 'broadcast' | 'released' | 'refused' = 'accepted';
  private settlement: Promise<Settlement> | null = null;
  /** The id it was sent under: a sponsored transaction's first signature is our fee payer's. */
  private sentSignature: string | null = null;
  private servedModel: string | null = null;

  constructor(
    readonly transfer: VerifiedTransfer,
    private readonly transaction: string,
    /** The receipt id, also the key of the budget reservation (there is one even without receipt storage). */
    readonly receiptId: string,
    readonly receipt: Receipt | null,
    /** The payer wallet's paid rate-limit window, for the response headers. */
    readonly rateLimit: RateDecision,
    /** What it holds until it ends: its source's exposure, its sponsored fee's charge. */
    private readonly holds: readonly PaymentHold[],
    private readonly deps: PaymentCollaborators,
    readonly settlesAt: 'before_handler' | 'at_first_content',
  ) {}

  get payer(): string {
    return this.transfer.payer;
  }

  get amountPaid(): bigint {
    return this.transfer.amount;
  }

  get replayKey(): string {
    return this.transfer.replayKey;
  }

  get transactionSignature(): string {
    return this.sentSignature ?? this.transfer.signature;
  }

  get holdsContentUntilLanded(): boolean {
    return this.transfer.nonceAccount !== null;
  }

  /** Whether the payment was handed to the chain (from then on it is never un-charged). */
  get broadcasted(): boolean {
    return this.phase === 'broadcast';
  }

  /** `/v1/receipts/<id>`, or null without receipt storage. */
  get receiptPath(): string | null {
    return this.receipt ? `/v1/receipts/${this.receipt.id}` : null;
  }

  /**
   * Calls `onExpiring` if the payment's blockhash is about to expire (a durable nonce never is);
   * the returned function stops watching. A caller waiting for content before the broadcast
   * releases the payment then, since its transfer could no longer land.
   */
  whenExpiring(onExpiring: () => void): () => void {
    if (this.transfer.nonceAccount !== null) return () => undefined;
    return this.deps.blockhashes.watch(this.transfer.recentBlockhash, onExpiring);
  }

  /** Nothing was broadcast: nothing is charged, and the claim is released so the same payment may be retried. */
  async release(): Promise<void> {
    if (this.phase !== 'accepted') return;
    this.phase = 'released';
    await this.giveBack();
  }

  /**
   * Hands the payment to the chain: resolves once it was sent or its outcome is unknown (both
   * count as broadcast). Throws 500 `settlement_failed` when the node refused it (preflight: nothing
   * charged, the claim released), or the replay 402 when it was already on chain and no durable
   * claim says it is this request's.
   */
  async broadcast(servedModel: string | null): Promise<void> {
    if (this.phase !== 'accepted') throw new Error(`payment ${this.phase}: cannot broadcast`);
    this.phase = 'broadcast';
    const prepared = this.deps.chain.prepare(this.transaction);
    if (!prepared) return this.refused('fee payer key unavailable', paymentErrors.settlementFailed(this.receiptPath));
    try {
      // Written before the send, never deferred: the reconciler must know what may be on chain.
      await this.deps.receipts?.recordBroadcast(this.receiptId, { broadcastAt: new Date(), signedTransaction: prepared.signedTransaction, transactionSignature: prepared.signature });
    } catch (err) {
      this.deps.logger.error({ err, receipt: this.receiptId }, 'could not record the broadcast; the payment is not sent');
      return this.refused('receipt storage unavailable', paymentErrors.receiptsUnavailable());
    }
    this.sentSignature = prepared.signature;
    this.servedModel = servedModel;
    const sent = await this.deps.chain.send(prepared);
    if (sent.kind === 'rejected') return this.refused(sent.detail, paymentErrors.settlementFailed(this.receiptPath));
    if (sent.kind === 'on-chain' && !this.receipt) {
      // No durable claim: a payment the payer broadcast itself may have paid another request already.
      this.phase = 'refused';
      this.deps.metrics.settlement('replayed');
      await this.releaseHolds();
      throw paymentErrors.replayed(this.transfer.replayKey);
    }
    if (sent.kind === 'unknown') this.deps.logger.warn({ detail: sent.detail, receipt: this.receiptId }, 'payment send outcome unknown; counted as broadcast');
    this.settlement = this.confirm(prepared.signature, servedModel);
  }

  /** The confirmation of a broadcast payment, waited for at most the confirmation window. */
  settled(): Promise<Settlement> {
    if (!this.settlement) throw new Error('payment not broadcast');
    return this.settlement;
  }

  async firstContentResponse(): Promise<string | null> {
    if (this.holdsContentUntilLanded) return (await this.settled()).paymentResponse;
    if (this.sentSignature === null) return null;
    return encodePaymentResponseHeader({ success: true, transaction: this.sentSignature, network: this.deps.network, payer: this.transfer.payer, extra: { confirmed: false } });
  }

  /** Records what the payer received, once the request has ended. */
  async recordDelivery(delivery: Delivery): Promise<void> {
    const { receipts } = this.deps;
    if (receipts) await this.deps.outbox.write(`receipt ${this.receiptId}: delivery`, () => receipts.recordDelivery(this.receiptId, delivery));
  }

  /** The transfer itself is the charge: what was paid, whatever the usage. */
  charge(_realCost: bigint | null, answer: AnswerSpend): Promise<bigint> {
    this.deps.spend.answer({ ...answer, payer: this.payer, charged: this.transfer.amount });
    return Promise.resolve(this.transfer.amount);
  }

  unserved(err: unknown): unknown {
    return err;
  }

  /** Keeps the payment counted as used for `ttlMs` more: its answer is kept for a resend that long. */
  holdFor(ttlMs: number): Promise<void> {
    return this.deps.replay.hold(this.transfer.replayKey, ttlMs);
  }

  private async refused(detail: string, error: Error): Promise<never> {
    this.phase = 'released';
    this.deps.logger.warn({ detail, receipt: this.receiptId }, 'payment not sent; nothing charged');
    this.deps.metrics.settlement('rejected');
    await this.giveBack();
    throw error;
  }

  /** The receipt says not_charged before the claim goes, so a retry never meets a stale durable claim. */
  private async giveBack(): Promise<void> {
    await this.complete({ status: 'not_charged', amountChargedAtomic: 0n, settledAt: null });
    await Promise.all([this.deps.replay.release(this.transfer.replayKey), this.releaseHolds()]);
  }

  /**
   * After the confirmation window, while `signal` lives (its answer still running): keeps looking
   * for the transfer, so that a landing with an error still stops the answer, and finishes the
   * receipt when it finds it. `pending` when stopped first.
   */
  async watchLanding(signal: AbortSignal, timeoutMs: number): Promise<Settlement['status']> {
    if (this.sentSignature === null || this.settlement === null || (await this.settlement).status !== 'pending') return (await this.settled()).status;
    const outcome = await this.deps.chain.confirm(this.sentSignature, timeoutMs, signal);
    if (outcome === 'unconfirmed') return 'pending';
    return (await this.concluded(this.sentSignature, outcome, this.servedModel)).status;
  }

  private async confirm(signature: string, servedModel: string | null): Promise<Settlement> {
    return this.concluded(signature, await this.deps.chain.confirm(signature, this.deps.confirmMs), servedModel);
  }

  private async concluded(signature: string, outcome: ConfirmOutcome, servedModel: string | null): Promise<Settlement> {
    // Unconfirmed, the holds stay until they lapse: the transfer may still land.
    if (outcome !== 'unconfirmed') await Promise.all(this.holds.map((hold) => hold.landed(outcome === 'confirmed')));
    const model = servedModel ? { model: servedModel } : {};
    if (outcome === 'confirmed') {
      await this.complete({ status: 'settled', amountChargedAtomic: this.transfer.amount, settledAt: new Date(), transactionSignature: signature, ...model });
      return {
        status: 'settled',
        paymentResponse: encodePaymentResponseHeader({ success: true, transaction: signature, network: this.deps.network, payer: this.transfer.payer }),
      };
    }
    if (outcome === 'failed') {
      // It landed with an error: the fee was paid, the funds did not move.
      this.deps.logger.error({ signature, receipt: this.receiptId }, 'payment landed with an error: not paid');
      await this.complete({ status: 'failed', amountChargedAtomic: 0n, settledAt: null, transactionSignature: signature, ...model });
      return { status: 'failed', paymentResponse: null };
    }
    // The gateway, never the payer, takes the risk of a slow chain: the answer goes out, the receipt stays pending.
    this.deps.metrics.settlement('unconfirmed');
    this.deps.logger.warn({ signature, receipt: this.receiptId }, 'payment not confirmed in the window; left pending for the reconciler');
    return { status: 'pending', paymentResponse: null };
  }

  private async releaseHolds(): Promise<void> {
    await Promise.all(this.holds.map((hold) => hold.release()));
  }

  /** Finishes the receipt; its budget reservation and the metric follow only if this call moved it (the reconciler may have first). */
  private async complete(outcome: ReceiptOutcome): Promise<void> {
    const { receipts } = this.deps;
    if (!receipts) return this.followed(outcome);
    await this.deps.outbox.write(`receipt ${this.receiptId}: ${outcome.status}`, async () => {
      if (await receipts.complete(this.receiptId, outcome)) await this.followed(outcome);
    });
  }

  private async followed(outcome: ReceiptOutcome): Promise<void> {
    this.deps.metrics.settlement(outcome.status);
    await this.deps.budgets.follow(this.receiptId, outcome.status).catch((err: unknown) => this.deps.logger.error({ err, receipt: this.receiptId }, 'budget reservation could not follow its receipt'));
  }
}
