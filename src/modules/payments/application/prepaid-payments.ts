import { Injectable } from '@nestjs/common';
import { BackgroundTasks } from '../../../core/background-tasks';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import type { ChatCost } from '../../billing/domain/chat-cost';
import { serviceAnswer, SpendRecorder } from '../../billing/application/spend-recorder';
import { UnpaidBudget } from '../../rate-limits/application/unpaid-budget';
import type { StageTiming } from '../../../core/stage-timing';
import { paymentErrors } from '../domain/payment-errors';
import type { SchemeName } from '../domain/schemes';
import type { Settlement } from './settlement';
import type { PaidPayment } from './paid-payment';
import { PaymentAcceptance } from './payment-acceptance';
import type { CountedAttempt } from './payment-attempts';
import { PaymentChallenges, type Challenge } from './payment-challenges';

/** A paid request as its route knows it before the payment is taken. */
export interface PrepaidRequest {
  path: string;
  cost: ChatCost;
  requestId: string;
  clientAddress: string;
  /** Aborts when the client leaves or the request times out. */
  signal: AbortSignal;
  timing: StageTiming;
  /** The quoted model, for the receipt (A2A); the tools have none. */
  model?: string;
  /** Called just before the broadcast: from then on the request is paid, and the request timeout must not answer it with "nothing charged". */
  onBroadcast: () => void;
  /** The payment was accepted with this receipt: whatever error ends the request from now on names it. */
  noteReceipt: (receiptPath: string) => void;
  /** The request body's size, counted in the client's unpaid budget by `PaymentAdmission.admit`. */
  bodyBytes: number;
  /** What a channel voucher's `request_digest` binds: the raw body (REST) or the A2A task's digest input. */
  body: Uint8Array;
}

/** A payment settled before serving, and what the route serves for it. */
export interface Prepaid {
  payment: PaidPayment;
  settlement: Settlement;
  /** The registry id of what was bought, for the spend log. */
  serviceId: string;
  /** Aborts when the client left or the request timed out: a draw's answer then never reached it. */
  signal: AbortSignal;
}

/**
 * Payments settled before the route serves (the paid tools, the proxied services and A2A; spec
 * 4.7, 4.8): the same PaymentAcceptance use case as chat, with budgeted payers refused (those
 * surfaces carry no budgets). An `exact` transfer is broadcast at once and an escrow deposit has
 * landed, so an upstream failure after this point is charged, with a spend row and a receipt. A
 * channel voucher is the other way round (deliver, then record; docs/decisions.md, "Channels"):
 * the route serves first and the draw is recorded only once its answer was given, so a failure
 * draws nothing and the same voucher may be sent again.
 */
@Injectable()
export class PrepaidPayments {
  constructor(
    private readonly payments: PaymentAcceptance,
    private readonly challenges: PaymentChallenges,
    private readonly unpaid: UnpaidBudget,
    private readonly spend: SpendRecorder,
    private readonly background: BackgroundTasks,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(PrepaidPayments.name);
  }

  /** The 402 for a request without a payment. */
  quote(path: string, cost: ChatCost): Challenge {
    return this.challenges.challenge(path, cost);
  }

  /**
   * Verifies, claims, broadcasts and waits for the confirmation. A payment the chain refused before
   * the broadcast, or whose client left before it, is released uncharged; one that landed with an
   * error is `settlement_reverted`; one not confirmed in the window is served (the reconciler
   * finishes its receipt), as chat does: the payer never carries a slow chain's risk.
   */
  async settle(header: string, attempt: CountedAttempt, request: PrepaidRequest, serviceId: string, schemes: readonly SchemeName[]): Promise<Prepaid> {
    try {
      return await this.settleOrRefuse(header, attempt, request, serviceId, schemes);
    } catch (err) {
      // An x402 client reads why from the headers (A2A answers in its body, so they go unread there).
      throw this.challenges.refusal(err, request.path, request.cost, '');
    }
  }

  private async settleOrRefuse(header: string, attempt: CountedAttempt, request: PrepaidRequest, serviceId: string, schemes: readonly SchemeName[]): Promise<Prepaid> {
    const verifying = performance.now();
    let payment: PaidPayment;
    try {
      payment = await this.payments.accept(header, {
        schemes,
        exactSettlesAt: 'before_handler',
        path: request.path,
        quote: request.cost.total,
        requestId: request.requestId,
        clientAddress: request.clientAddress,
        attempt,
        model: request.model ?? null,
        budgetedPayers: 'refuse',
        durableNonces: 'refuse',
        body: request.body,
      });
    } finally {
      request.timing.payment('verify', performance.now() - verifying);
    }
    if (payment.receiptPath) request.noteReceipt(payment.receiptPath);
    await this.unpaid.refund(request.clientAddress, request.bodyBytes);
    if (request.signal.aborted) {
      await payment.release();
      throw request.signal.reason;
    }
    // A draw is owed only once its answer is given: the request timeout still ends it uncharged until then.
    if (payment.settlesAt === 'after_delivery') return { payment, settlement: await payment.settled(), serviceId, signal: request.signal };
    const settling = performance.now();
    request.onBroadcast();
    // An exact payment settles before serving (spec 4.7); an escrow deposit already has, and its claim becomes owed once the route has an answer to deliver.
    if (payment.settlesAt === 'before_handler') await payment.broadcast(null);
    const settlement = await payment.settled();
    request.timing.payment('settle', performance.now() - settling);
    if (settlement.status === 'failed') {
      const reverted = paymentErrors.reverted();
      throw this.challenges.refusal(
        payment.receiptPath ? new GatewayError(reverted.code, reverted.message, { 'X-Gw-Receipt': payment.receiptPath }) : reverted,
        request.path,
        request.cost,
        payment.transactionSignature,
      );
    }
    return { payment, settlement, serviceId, signal: request.signal };
  }

  /**
   * After the route answered or failed. A payment settled before serving is charged either way (its
   * spend row), and its receipt records the delivery when the route answered. A draw is recorded
   * only if the answer was given to a client still there; otherwise nothing is drawn.
   */
  async served(prepaid: Prepaid, requestId: string, delivered: boolean): Promise<void> {
    const { payment, serviceId } = prepaid;
    if (payment.settlesAt === 'after_delivery') {
      await this.recordDraw(prepaid, requestId, delivered && !prepaid.signal.aborted).catch((err: unknown) =>
        this.logger.error({ err, request_id: requestId, receipt: payment.receiptId }, 'a draw could not be ended; its receipt stays pending'),
      );
      return;
    }
    this.spend.service({ requestId, payer: payment.payer, serviceId, charged: payment.amountPaid });
    if (delivered) this.background.run('receipt delivery', () => payment.recordDelivery('complete'));
    else this.logger.info({ request_id: requestId, receipt: payment.receiptId }, 'paid request failed after its payment settled; charged, receipt kept');
  }

  private async recordDraw({ payment, serviceId }: Prepaid, requestId: string, delivered: boolean): Promise<void> {
    if (!delivered) return payment.release();
    await payment.broadcast(null);
    await payment.recordDelivery('complete');
    await payment.charge(null, serviceAnswer(requestId, serviceId));
  }
}
