import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import type { PaidPayment } from '../../payments/application/paid-payment';
import { PaymentAcceptance } from '../../payments/application/payment-acceptance';
import { PaymentAdmission } from '../../payments/application/payment-admission';
import type { CountedAttempt } from '../../payments/application/payment-attempts';
import { PaymentOffers } from '../../payments/application/payment-offers';
import { PaymentReplayed } from '../../payments/domain/payment-errors';
import type { ChatCompletion } from '../../providers/domain/chat-completion';
import { rateLimitHeaders } from '../../rate-limits/domain/rate-limit-headers';
import { quoteOf, type ChatPlan } from '../domain/chat-plan';
import { requestFingerprint } from '../domain/request-fingerprint';
import { SessionTokenSigner } from '../domain/session-token';
import { AnswerRedelivery } from './answer-redelivery';
import { type CompletionCaller, type CompletionOutcome, type ServedAnswer } from './completion-outcome';
import { PaidAnswerSource, type PaidSource } from './paid-answer-source';
import { answerOf } from './paid-generation';
import { PaidGenerations } from './paid-generations';

/**
 * A paid request once its windows and the guard passed (spec 4.1): the 402 quote until a payment
 * comes; then, with `exact`, the payment is verified and claimed, the answer is produced detached
 * from the connection, always streamed from the upstream, the payment is broadcast at its first
 * content, and a JSON answer is sent once it and the confirmation are in; with `escrow`, the
 * deposit settled before serving. A used payment whose client left early may get its answer
 * again (AnswerRedelivery). The lifecycle is docs/decisions.md, "Money moves exactly once (1 of 2)".
 */
@Injectable()
export class PaidServing {
  private readonly sessions: SessionTokenSigner;

  constructor(
    private readonly payments: PaymentAcceptance,
    private readonly offers: PaymentOffers,
    private readonly admission: PaymentAdmission,
    private readonly generations: PaidGenerations,
    private readonly sources: PaidAnswerSource,
    private readonly redelivery: AnswerRedelivery,
    config: GatewayConfig,
  ) {
    this.sessions = new SessionTokenSigner(config.sessionSecret.reveal());
  }

  quote(plan: ChatPlan, caller: CompletionCaller): CompletionOutcome {
    return { kind: 'quote', plan, challenge: this.offers.quote(caller.surface.path, quoteOf(plan), caller.surface.extensions) };
  }

  async serve(plan: ChatPlan, caller: CompletionCaller, header: string, attempt: CountedAttempt): Promise<CompletionOutcome> {
    const quote = quoteOf(plan);
    const verifying = performance.now();
    let payment: PaidPayment;
    try {
      payment = await this.payments.accept(header, {
        schemes: ['exact', 'escrow', 'channel'],
        exactSettlesAt: 'at_first_content',
        path: caller.surface.path,
        body: caller.rawBody,
        quote: quote.total,
        requestId: caller.requestId,
        clientAddress: caller.clientAddress,
        attempt,
        model: plan.candidates[0].model.id,
      });
    } catch (err) {
      let refused = err;
      if (err instanceof PaymentReplayed) {
        try {
          const again = await this.redelivery.resend(plan, err, caller);
          if (again) return again;
          refused = err.otherwise ?? err;
        } catch (keptAnswerRefused) {
          refused = keptAnswerRefused;
        }
      }
      // An x402 client reads why from the headers.
      throw this.offers.refusal(refused, caller.surface.path, quote, '');
    } finally {
      caller.timing.payment('verify', performance.now() - verifying);
    }
    if (payment.receiptPath) caller.noteReceipt(payment.receiptPath);
    await this.admission.paid(caller.clientAddress, caller.bodyBytes);
    const headers: Record<string, string> = {
      'X-Gw-Session': this.sessions.sign({ sid: caller.sessionId ?? caller.requestId, wallet: payment.payer, iat: Math.floor(Date.now() / 1000) }),
      ...rateLimitHeaders(payment.rateLimit),
    };
    if (payment.receiptPath) headers['X-Gw-Receipt'] = payment.receiptPath;

    const fingerprint = requestFingerprint(plan.request);
    const call = this.generations.open(payment, caller.signal);
    let answer: PaidSource;
    try {
      answer = await this.sources.open(plan, payment, caller, call.upstream.signal);
    } catch (err) {
      this.generations.close(call);
      await payment.release();
      throw payment.unserved(err);
    }
    const { source, candidate, fallback, cache, cacheable, adjustments } = answer;
    const generation = this.generations.start(call, source, {
      candidate,
      requestId: caller.requestId,
      suspendTimeout: caller.suspendTimeout,
      fingerprint,
      cacheable,
      inputTokens: plan.inputTokens,
      cached: cache === 'hit',
    });
    const settling = performance.now();
    const stream = plan.request.stream === true;
    // A stream's headers leave with its first content, once its payment was broadcast (and its PAYMENT-RESPONSE known).
    if (stream || payment.holdsContentUntilLanded) {
      try {
        await generation.contentReleased();
      } catch (err) {
        // Not landed in time: this client gets the 402; the answer goes on and is kept for its resend.
        generation.originalLeft();
        throw this.offers.refusal(payment.unserved(err), caller.surface.path, quote, payment.transactionSignature);
      }
    }
    const served = (body: ServedAnswer['body']): ServedAnswer => ({ model: candidate.model, fallback, cache, adjustments, body });
    if (stream) {
      const response = payment.broadcasted ? await payment.firstContentResponse() : null;
      if (response) headers['PAYMENT-RESPONSE'] = response;
      return { kind: 'served', plan, served: served({ kind: 'stream', chunks: generation.listen(true) }), headers, paymentStatus: 'verified' };
    }
    const end = await generation.ended;
    caller.timing.payment('settle', performance.now() - settling);
    if (caller.signal.aborted) generation.originalLeft();
    else generation.originalReceivedAll();
    let completion: ChatCompletion;
    try {
      completion = answerOf(end);
    } catch (err) {
      throw this.offers.refusal(payment.unserved(err), caller.surface.path, quote, payment.transactionSignature);
    }
    if (end.kind === 'answer' && end.settlement.paymentResponse) headers['PAYMENT-RESPONSE'] = end.settlement.paymentResponse;
    return { kind: 'served', plan, served: served({ kind: 'json', completion }), headers, paymentStatus: end.kind === 'answer' ? end.settlement.status : null };
  }
}
