import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { BackgroundTasks } from '../../../core/background-tasks';
import { InFlightRequests } from '../../../core/in-flight-requests';
import { AppLogger } from '../../../logging/app-logger';
import { SpendRecorder } from '../../billing/application/spend-recorder';
import type { PaidPayment } from '../../payments/application/paid-payment';
import { paymentErrors } from '../../payments/domain/payment-errors';
import { failedSettlementHeader } from '../../payments/domain/x402-refusal';
import { PaymentChain } from '../../payments/ports/payment-chain';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import type { PricedCandidate } from '../domain/chat-plan';
import { answerCost } from '../../billing/domain/answer-cost';
import { RedeliveryStore, type KeptAnswer } from '../ports/redelivery-store';
import { PaidCall } from './paid-call';
import { PaidGeneration } from './paid-generation';
import { AnswerCache } from './answer-cache';

export interface PaidStart {
  candidate: PricedCandidate;
  requestId: string;
  /** Stops GW_REQUEST_TIMEOUT_SECS from cutting the request once its payment is broadcast. */
  suspendTimeout: () => void;
  fingerprint: string;
  /** The cache key to write a whole answer under, or null. */
  cacheable: string | null;
  inputTokens: number;
  /** Answered from the cache: charged its quote, not the usage (docs/decisions.md, "Cache"). */
  cached: boolean;
}

/** A resend that may have a paid answer: the live generation it attaches to, or the answer kept for it. */
export type Redelivery = ({ kind: 'live'; generation: PaidGeneration } | { kind: 'kept'; completion: ChatCompletion; whole: boolean }) & { receiptPath: string | null };

const SHUTDOWN_MARGIN_MS = 1_000;

/**
 * Paid generations in flight on this instance, and what happens once each ends: the receipt's
 * delivery, the answer kept for a resend when its client left early (GW_REDELIVERY_TTL_SECS), the
 * spend log and the cache. On shutdown, calls that cannot finish in the grace period are stopped:
 * released when not broadcast yet, else cut (`partial`).
 */
@Injectable()
export class PaidGenerations implements BeforeApplicationShutdown {
  /** Paid calls in flight on this instance, by their payment's replay key (one accepted payment holds it at a time). */
  private readonly calls = new Map<string, PaidCall>();

  constructor(
    private readonly redelivery: RedeliveryStore,
    private readonly answers: AnswerCache,
    private readonly spend: SpendRecorder,
    private readonly chain: PaymentChain,
    private readonly background: BackgroundTasks,
    private readonly logger: AppLogger,
    private readonly config: GatewayConfig,
    inFlight: InFlightRequests,
  ) {
    logger.setContext(PaidGenerations.name);
    inFlight.onGraceOver(() => this.stopUnbegun());
  }

  /** A paid call from its payment's acceptance (before any provider answers), so shutdown can stop it while nothing is charged. */
  open(payment: PaidPayment, signal: AbortSignal): PaidCall {
    const call = new PaidCall(payment, signal, this.config.http.requestTimeoutMs);
    this.calls.set(payment.replayKey, call);
    return call;
  }

  /** The call is over (no answer began, or its generation concluded): it is forgotten. */
  close(call: PaidCall): void {
    call.dispose();
    // A released payment may already be retried under the same key: only this call is forgotten.
    if (this.calls.get(call.payment.replayKey) === call) this.calls.delete(call.payment.replayKey);
  }

  /** Produces the answer from `source` (an upstream stream, or a cached answer's chunks), detached from the client; closes the call when it is over. */
  start(call: PaidCall, source: AsyncIterable<ChatCompletionChunk>, start: PaidStart): PaidGeneration {
    const generation = new PaidGeneration(source, {
      payment: call.payment,
      modelId: start.candidate.model.id,
      upstream: call.upstream,
      onBroadcast: start.suspendTimeout,
      streamMaxMs: this.config.http.streamMaxMs,
    });
    call.attach(generation, start.fingerprint, this.config.http.streamMaxMs);
    this.background.run('paid generation', () => this.conclude(call, generation, start).finally(() => this.close(call)));
    return generation;
  }

  /**
   * The answer for a resend of a used payment, when its original client left before receiving all
   * of it and the resend is the same request: the generation still running, or the kept answer.
   */
  async redeliver(replayKey: string, fingerprint: string): Promise<Redelivery | null> {
    const call = this.calls.get(replayKey);
    const running = call?.running;
    if (call && running) {
      if (running.fingerprint !== fingerprint || !running.generation.originalGone) return null;
      await this.landedOrThrow(call.payment.holdsContentUntilLanded ? { signature: call.payment.transactionSignature, required: true } : null);
      running.generation.markLanded();
      return { kind: 'live', generation: running.generation, receiptPath: call.payment.receiptPath };
    }
    const kept = await this.redelivery.find(replayKey);
    if (!kept || kept.fingerprint !== fingerprint) return null;
    await this.landedOrThrow(kept.landing);
    return { kind: 'kept', completion: kept.completion, whole: kept.whole, receiptPath: kept.receiptPath };
  }

  /**
   * An answer kept while its payment's landing was unknown goes out again only as the chain now
   * says: never once the transfer landed with an error, and, held until its durable-nonce transfer
   * lands, only once it has.
   */
  private async landedOrThrow(landing: KeptAnswer['landing']): Promise<void> {
    if (landing === null) return;
    const status = await this.chain.status(landing.signature).catch(() => 'absent' as const);
    const refused = status === 'failed' ? paymentErrors.reverted() : status !== 'confirmed' && landing.required ? paymentErrors.unconfirmed() : null;
    if (refused) throw new GatewayError(refused.code, refused.message, failedSettlementHeader(refused.code, landing.signature, this.config.solana.network));
  }

  private async conclude(call: PaidCall, generation: PaidGeneration, start: PaidStart): Promise<void> {
    const end = await generation.ended;
    if (end.kind === 'error') return;
    // The client has stopped reading, or left (whatever its reader was doing).
    await generation.originalFinished;
    const { payment } = call;
    await payment.recordDelivery(generation.delivery(end));
    const paid = end.settlement.status !== 'failed';
    const answer = { requestId: start.requestId, model: start.candidate.model, usage: end.completion.usage, estimatedInputTokens: start.inputTokens };
    if (paid) await payment.charge(start.cached ? start.candidate.cost.total : answerCost(end.completion.usage, start.candidate.model.rates), answer);
    else this.spend.answer({ ...answer, payer: payment.payer, charged: 0n });
    if (paid && generation.originalReceived !== 'all') {
      // The payment stays "used" as long as its answer is kept, or a resend would meet the chain checks instead.
      await payment.holdFor(this.config.settlement.redeliveryTtlMs);
      await this.redelivery.keep(
        payment.replayKey,
        {
          fingerprint: start.fingerprint,
          completion: end.completion,
          whole: end.whole,
          receiptPath: payment.receiptPath,
          landing: end.settlement.status === 'settled' ? null : { signature: payment.transactionSignature, required: payment.holdsContentUntilLanded },
        },
        this.config.settlement.redeliveryTtlMs,
      );
    }
    if (paid && end.whole && start.cacheable) {
      this.answers.keep(start.cacheable, end.completion);
    }
  }

  /**
   * The grace period is over and requests are still in flight: paid calls whose answer has not
   * begun are stopped now, while their connections stand, so each client is told (503, with its
   * receipt) that nothing was charged.
   */
  private stopUnbegun(): void {
    for (const call of this.calls.values()) if (!call.payment.broadcasted) call.stop(shuttingDown(call.payment));
  }

  /**
   * Paid calls get the grace period to finish. Then those not broadcast yet are stopped and
   * released (nothing is charged, and nothing can be once the server has closed their
   * connections); those broadcast are cut and end `partial`.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const deadline = Date.now() + Math.max(0, this.config.http.shutdownGraceMs - SHUTDOWN_MARGIN_MS);
    while (this.calls.size > 0 && Date.now() < deadline) await sleep(50);
    if (this.calls.size === 0) return;
    this.logger.warn({ calls: this.calls.size }, 'shutdown: stopping paid calls that did not finish in the grace period');
    for (const call of this.calls.values()) call.stop(call.payment.broadcasted ? new GatewayError('server.shutting_down', 'the gateway is shutting down') : shuttingDown(call.payment));
    await sleep(SHUTDOWN_MARGIN_MS / 2);
  }
}

/** What a client whose paid answer had not begun is told at shutdown: nothing was charged, and what becomes of its payment. */
function shuttingDown(payment: PaidPayment): GatewayError {
  return new GatewayError(
    'server.shutting_down',
    payment.scheme === 'escrow'
      ? 'the gateway is shutting down before the answer began; nothing will be claimed, and the deposit goes back to the agent at its expiry'
      : 'the gateway is shutting down; the payment was not used, retry shortly',
  );
}
