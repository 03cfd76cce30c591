import { encodePaymentResponseHeader, type Network } from '../../../../libs/x402';
import type { AppLogger } from '../../../logging/app-logger';
import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';
import type { Delivery, Receipt, ReceiptOutcome } from '../domain/receipt';
import type { BudgetReservations } from '../ports/budget-reservations';
import type { VerifiedDeposit } from '../ports/escrow-chain';
import type { EscrowClaims } from '../ports/escrow-claims';
import type { ReceiptStore } from '../ports/receipt-store';
import type { ReplayStore } from '../ports/replay-store';
import type { Settlement } from './accepted-payment';
import type { PaidPayment } from './paid-payment';
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
}

/**
 * An escrow deposit that settled on chain before serving (spec 3.2, docs/decisions.md, "Escrow"):
 * there is nothing left to broadcast. An answer that delivered content queues the claim of its
 * real cost (never above the deposit); one that delivered nothing claims nothing, and the deposit
 * goes back to the agent at expiry. The receipt stays `pending` until the claim lands.
 */
export class AcceptedDeposit implements PaidPayment {
  readonly broadcasted = true;
  private ended = false;

  constructor(
    readonly deposit: VerifiedDeposit,
    readonly receipt: Receipt,
    readonly rateLimit: RateDecision,
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

  /** The deposit has landed: no blockhash can expire under it any more. */
  whenExpiring(): () => void {
    return () => undefined;
  }

  /** Nothing delivered: no claim; the receipt says so, the budget reservation goes, the deposit refunds at expiry. */
  async release(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.complete({ status: 'not_charged', amountChargedAtomic: 0n, settledAt: null });
  }

  /** Settled before serving: nothing to send. */
  broadcast(): Promise<void> {
    return Promise.resolve();
  }

  settled(): Promise<Settlement> {
    return Promise.resolve({
      status: 'settled',
      paymentResponse: encodePaymentResponseHeader({ success: true, transaction: this.deposit.signature, network: this.deps.network, payer: this.deposit.agent }),
    });
  }

  async recordDelivery(delivery: Delivery): Promise<void> {
    const { receipts } = this.deps;
    await this.deps.outbox.write(`receipt ${this.receipt.id}: delivery`, () => receipts.recordDelivery(this.receipt.id, delivery));
  }

  holdFor(ttlMs: number): Promise<void> {
    return this.deps.replay.hold(this.deposit.replayKey, ttlMs);
  }

  /**
   * Queues the claim of the real cost; the claim processor lands it and finishes the receipt. Never
   * above the quote the agent agreed to (an agent may deposit more; the gateway's estimate errs at
   * its own risk, as with `exact`), and the quote when the usage is unknown: the deposit, for an
   * agent that deposited the quote (docs/decisions.md, "Escrow").
   */
  async charge(realCost: bigint | null): Promise<bigint> {
    const ceiling = this.receipt.amountQuotedAtomic < this.deposit.amount ? this.receipt.amountQuotedAtomic : this.deposit.amount;
    const claimAtomic = realCost === null || realCost > ceiling ? ceiling : realCost;
    if (this.ended) return 0n;
    this.ended = true;
    const { deposit } = this;
    await this.deps.outbox.write(`escrow claim ${this.receipt.id}`, async () => {
      await this.deps.claims.enqueue(
        { receiptId: this.receipt.id, escrow: deposit.escrow, agent: deposit.agent, serviceId: deposit.serviceId, depositAtomic: deposit.amount, claimAtomic, expirySlot: deposit.expirySlot },
        new Date(),
      );
    });
    return claimAtomic;
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
