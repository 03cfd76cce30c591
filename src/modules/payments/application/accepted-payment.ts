import type { AppLogger } from '../../../logging/app-logger';
import { encodePaymentResponseHeader, type Network } from '../../../../libs/x402';
import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';
import type { VerifiedTransfer } from '../domain/exact-payment';
import { paymentErrors } from '../domain/payment-errors';
import type { Receipt, ReceiptOutcome } from '../domain/receipt';
import type { PaymentChain } from '../ports/payment-chain';
import type { ReplayStore } from '../ports/replay-store';
import type { ReceiptStore } from '../ports/receipt-store';
import type { PaymentMetrics } from './payment-metrics';

export interface SettledPayment {
  transactionSignature: string;
  amountChargedAtomic: bigint;
  /** The standard x402 `PAYMENT-RESPONSE` header value. */
  paymentResponse: string;
}

interface Collaborators {
  chain: PaymentChain;
  replay: ReplayStore;
  receipts: ReceiptStore | undefined;
  metrics: PaymentMetrics;
  logger: AppLogger;
  network: Network;
}

/**
 * A verified, claimed payment awaiting its outcome: `settle` broadcasts it (after delivery for
 * chat, before serving for tools) and `abandon` gives it back unused when nothing was delivered.
 * Exactly one of them takes effect; the receipt records which, and a failure is never silent.
 */
export class AcceptedPayment {
  private outcome: Promise<SettledPayment> | Promise<void> | null = null;

  constructor(
    readonly transfer: VerifiedTransfer,
    private readonly transaction: string,
    readonly receipt: Receipt | null,
    /** The payer wallet's paid rate-limit window, for the response headers. */
    readonly rateLimit: RateDecision,
    /** The claim on the paying account while this payment is unsettled, if the caller asked for one. */
    private readonly sourceLock: string | null,
    private readonly deps: Collaborators,
  ) {}

  get payer(): string {
    return this.transfer.payer;
  }

  get amountPaid(): bigint {
    return this.transfer.amount;
  }

  /** `/v1/receipts/<id>`, or null without receipt storage. */
  get receiptPath(): string | null {
    return this.receipt ? `/v1/receipts/${this.receipt.id}` : null;
  }

  /** Broadcasts the payment; throws 500 `settlement_failed` (recorded on the receipt) when it did not land. */
  settle(servedModel: string | null): Promise<SettledPayment> {
    if (this.outcome) throw new Error('payment already settled or abandoned');
    const settled = this.broadcast(servedModel).finally(() => this.unlockSource());
    this.outcome = settled;
    return settled;
  }

  /** Nothing was delivered: nothing is broadcast, the claim is released so the same payment may be retried. */
  abandon(): Promise<void> {
    if (this.outcome) return Promise.resolve();
    const abandoned = (async () => {
      await Promise.all([this.deps.replay.release(this.transfer.replayKey), this.unlockSource()]);
      this.deps.metrics.settlement('not_charged');
      await this.complete({ status: 'not_charged', amountChargedAtomic: 0n, settledAt: null });
    })();
    this.outcome = abandoned;
    return abandoned;
  }

  private async broadcast(servedModel: string | null): Promise<SettledPayment> {
    const result = await this.deps.chain.broadcast(this.transaction);
    if (result.ok) {
      const { signature } = result;
      this.deps.metrics.settlement('settled');
      await this.complete({ status: 'settled', amountChargedAtomic: this.transfer.amount, settledAt: new Date(), transactionSignature: signature, ...(servedModel ? { model: servedModel } : {}) });
      return {
        transactionSignature: signature,
        amountChargedAtomic: this.transfer.amount,
        paymentResponse: encodePaymentResponseHeader({ success: true, transaction: signature, network: this.deps.network, payer: this.transfer.payer }),
      };
    }
    this.deps.metrics.settlement(result.reason);
    this.deps.logger.error(
      { reason: result.reason, detail: result.detail, signature: this.transfer.signature, receipt: this.receipt?.id },
      'settlement failed after delivery was ready; the answer is withheld',
    );
    // A rejected transaction can never land: the payer may try again. A failed one landed without
    // moving funds. An unconfirmed one may still land: its receipt stays pending, the honest state.
    if (result.reason === 'rejected') await this.deps.replay.release(this.transfer.replayKey);
    if (result.reason !== 'unconfirmed') await this.complete({ status: 'failed', amountChargedAtomic: 0n, settledAt: null });
    throw paymentErrors.settlementFailed(this.receiptPath);
  }

  private async unlockSource(): Promise<void> {
    if (this.sourceLock) await this.deps.replay.release(this.sourceLock);
  }

  private async complete(outcome: ReceiptOutcome): Promise<void> {
    if (!this.receipt || !this.deps.receipts) return;
    try {
      await this.deps.receipts.complete(this.receipt.id, outcome);
    } catch (err) {
      this.deps.logger.error({ err, receipt: this.receipt.id, outcome: outcome.status }, 'could not record the payment outcome on its receipt');
    }
  }
}
