import { GatewayError } from '../../../errors/gateway-error';
import type { AppLogger } from '../../../logging/app-logger';
import { answerRow, type AnswerSpend } from '../../billing/application/spend-recorder';
import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';
import type { Channel } from '../domain/channel';
import type { Delivery, Receipt, ReceiptOutcome } from '../domain/receipt';
import type { BudgetReservations } from '../ports/budget-reservations';
import type { ChannelLedger } from '../ports/channel-ledger';
import type { ChannelLocks } from '../ports/channel-locks';
import type { ReceiptStore } from '../ports/receipt-store';
import type { PaidPayment } from './paid-payment';
import type { PaymentMetrics } from './payment-metrics';
import type { ReceiptOutbox } from './receipt-outbox';
import type { Settlement } from './settlement';

/** A voucher accepted under its channel's lock. */
export interface AcceptedVoucher {
  channel: Channel;
  cumulative: bigint;
  expirySlot: bigint;
  nonce: bigint;
  requestDigest: Buffer;
  signature: Buffer;
  quote: bigint;
  receipt: Receipt;
  lockToken: string;
}

export interface DrawCollaborators {
  ledger: ChannelLedger;
  locks: ChannelLocks;
  receipts: ReceiptStore;
  budgets: BudgetReservations;
  outbox: ReceiptOutbox;
  metrics: PaymentMetrics;
  logger: AppLogger;
}

/** Nothing moves on chain for a draw, and its answer carries no PAYMENT-RESPONSE. */
const DRAWN: Settlement = { status: 'settled', paymentResponse: null };
/** Failures of the provider, as against refusals of the request or its payment. */
const UPSTREAM_FAILURES: ReadonlySet<string> = new Set(['provider_error', 'upstream_unavailable']);
const NOT_DRAWN: ReceiptOutcome = { status: 'not_charged', amountChargedAtomic: 0n, settledAt: null };
/** A draw is limited by its channel's lock, not by the paid rate window. */
const UNLIMITED: RateDecision = { allowed: true, limit: 0, remaining: 0, resetSecs: 0 };

/**
 * A channel draw from acceptance to its record (docs/decisions.md, "Channels"): deliver,
 * then record. Nothing is drawn until content went out; the draw is recorded once the answer ended,
 * in one transaction with its voucher, receipt and spend row, and only if the channel has not
 * moved meanwhile (a close that won the race serves the answer free, counted). Released, nothing
 * is drawn and the same voucher may be sent again. The lock is held until then.
 */
export class ChannelDrawPayment implements PaidPayment {
  readonly scheme = 'channel';
  readonly settlesAt = 'after_delivery';
  readonly holdsContentUntilLanded = false;
  readonly rateLimit = UNLIMITED;
  private phase: 'accepted' | 'delivering' | 'ended' = 'accepted';
  private servedModel: string | null = null;
  /** Given back before any content: nothing drawn. */
  private released = false;

  constructor(
    private readonly voucher: AcceptedVoucher,
    private readonly deps: DrawCollaborators,
  ) {}

  get payer(): string {
    return this.voucher.channel.agentWallet;
  }

  get amountPaid(): bigint {
    return this.voucher.quote;
  }

  get receiptId(): string {
    return this.voucher.receipt.id;
  }

  get receiptPath(): string {
    return `/v1/receipts/${this.voucher.receipt.id}`;
  }

  get replayKey(): string {
    return this.voucher.receipt.replayKey;
  }

  get transactionSignature(): string {
    return '';
  }

  get broadcasted(): boolean {
    return this.phase !== 'accepted';
  }

  /** A voucher has no blockhash to expire: its expiry was checked at acceptance. */
  whenExpiring(): () => void {
    return () => undefined;
  }

  async release(): Promise<void> {
    if (this.phase !== 'accepted') return;
    this.phase = 'ended';
    this.released = true;
    await this.end();
  }

  /** Content is going out: from now on the draw is owed, as an `exact` payment is once broadcast. */
  broadcast(servedModel: string | null): Promise<void> {
    if (this.phase === 'accepted') this.phase = 'delivering';
    this.servedModel = servedModel;
    return Promise.resolve();
  }

  settled(): Promise<Settlement> {
    return Promise.resolve(DRAWN);
  }

  firstContentResponse(): Promise<string | null> {
    return Promise.resolve(null);
  }

  watchLanding(): Promise<Settlement['status']> {
    return Promise.resolve('settled');
  }

  async recordDelivery(delivery: Delivery): Promise<void> {
    const { receipts, outbox } = this.deps;
    await outbox.write(`receipt ${this.receiptId}: delivery`, () => receipts.recordDelivery(this.receiptId, delivery));
  }

  /** The draw's record is what marks the voucher used (a resend of it is found there, ChannelDraws), for as long as the answer is kept. */
  holdFor(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * The answer ended having delivered content: the draw is recorded, in one transaction with its
   * voucher, receipt and spend row. A channel that moved first (a close) leaves it unrecorded and
   * the answer free; a database failure is logged and counted, never retried against the client.
   */
  async charge(_realCost: bigint | null, answer: AnswerSpend): Promise<bigint> {
    if (this.phase !== 'delivering') return 0n;
    this.phase = 'ended';
    const { voucher, deps } = this;
    const row = answerRow({ ...answer, payer: this.payer, charged: voucher.quote });
    let outcome: 'recorded' | 'race' | 'error';
    try {
      outcome = await deps.ledger.recordDraw({
        channelId: voucher.channel.id,
        cumulative: voucher.cumulative,
        amount: voucher.quote,
        expirySlot: voucher.expirySlot,
        nonce: voucher.nonce,
        requestDigest: voucher.requestDigest.toString('base64'),
        signature: voucher.signature.toString('base64'),
        receiptId: this.receiptId,
        spend: {
          requestId: row.requestId,
          payer: this.payer,
          model: this.servedModel ?? row.model,
          provider: row.provider,
          inputTokens: row.tokensIn,
          outputTokens: row.tokensOut,
          chargedAtomic: voucher.quote,
        },
        at: new Date(),
      });
    } catch (err) {
      deps.logger.error({ err, channel: voucher.channel.id, receipt: this.receiptId }, 'could not record a delivered draw; served unrecorded');
      outcome = 'error';
    }
    deps.metrics.channelDraw(voucher.receipt.endpoint, outcome);
    if (outcome === 'recorded') {
      await this.finish('settled');
      return voucher.quote;
    }
    if (outcome === 'race') deps.logger.warn({ channel: voucher.channel.id, receipt: this.receiptId }, 'a delivered draw lost the race with its channel moving (a close); served free');
    await this.end();
    return 0n;
  }

  /** A provider failure before any content drew nothing (docs/decisions.md, "Channels": 503, the same voucher good again). */
  unserved(err: unknown): unknown {
    if (!this.released || !(err instanceof GatewayError) || !UPSTREAM_FAILURES.has(err.type)) return err;
    return new GatewayError('upstream.unavailable', `${err.message}; nothing was drawn from the channel: send the same voucher again`, err.headers, { cause: err });
  }

  /** Ends without a record: the receipt and the budget say nothing was drawn; the lock goes. */
  private async end(): Promise<void> {
    const { receipts, outbox } = this.deps;
    await outbox.write(`receipt ${this.receiptId}: not_charged`, async () => {
      await receipts.complete(this.receiptId, NOT_DRAWN);
    });
    await this.finish('not_charged');
  }

  /** The budget follows the receipt, and the lock goes. */
  private async finish(status: 'settled' | 'not_charged'): Promise<void> {
    const { budgets, locks, logger } = this.deps;
    await budgets.follow(this.receiptId, status).catch((err: unknown) => logger.error({ err, receipt: this.receiptId }, 'budget reservation could not follow its draw'));
    await locks.release(this.voucher.channel.id, this.voucher.lockToken);
  }
}
