import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { BackgroundTasks } from '../../../lifecycle/background-tasks';
import { AppLogger } from '../../../logging/app-logger';
import { SpendLog } from '../../billing/ports/spend-log';
import type { AcceptedPayment } from '../../payments/application/accepted-payment';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import type { PricedCandidate } from '../domain/chat-plan';
import { RedeliveryStore } from '../ports/redelivery-store';
import { ResponseCache } from '../ports/response-cache';
import { StreamCapReached } from '../domain/stream-cap';
import { PaidGeneration, type GenerationEnd } from './paid-generation';

export interface PaidStart {
  payment: AcceptedPayment;
  candidate: PricedCandidate;
  requestId: string;
  /** The client's connection: its departure is noted, a timeout before the broadcast stops the call. */
  signal: AbortSignal;
  /** Stops GW_REQUEST_TIMEOUT_SECS from cutting the request once its payment is broadcast. */
  suspendTimeout: () => void;
  fingerprint: string;
  /** The cache key to write a whole answer under, or null. */
  cacheable: string | null;
  inputTokens: number;
}

/** A resend that may have a paid answer: the live generation it attaches to, or the answer kept for it. */
export type Redelivery = ({ kind: 'live'; generation: PaidGeneration } | { kind: 'kept'; completion: ChatCompletion; whole: boolean }) & { receiptPath: string | null };

const SHUTDOWN_MARGIN_MS = 1_000;

/**
 * Paid generations in flight on this instance, and what happens once each ends: the receipt's
 * delivery, the answer kept for a resend when its client left early (GW_REDELIVERY_TTL_SECS), the
 * spend log and the cache. On shutdown, generations that cannot finish in the grace period are cut
 * and end `partial`.
 */
@Injectable()
export class PaidGenerations implements BeforeApplicationShutdown {
  private readonly calls = new Set<{ payment: AcceptedPayment; upstream: AbortController }>();
  private readonly live = new Map<string, { fingerprint: string; generation: PaidGeneration; receiptPath: string | null }>();

  constructor(
    private readonly redelivery: RedeliveryStore,
    private readonly cache: ResponseCache,
    private readonly spendLog: SpendLog,
    private readonly background: BackgroundTasks,
    private readonly logger: AppLogger,
    private readonly config: GatewayConfig,
  ) {
    logger.setContext(PaidGenerations.name);
  }

  /** Starts producing the answer from `source` (an upstream stream, or a cached answer's chunks), detached from the client. */
  /**
   * Registers a paid upstream call from the payment's acceptance (before its provider answers), so
   * that shutdown can stop it while nothing is charged; the returned function forgets it.
   */
  track(payment: AcceptedPayment, upstream: AbortController): () => void {
    const call = { payment, upstream };
    this.calls.add(call);
    return () => this.calls.delete(call);
  }

  start(source: AsyncIterable<ChatCompletionChunk>, upstream: AbortController, ended: () => void, start: PaidStart): PaidGeneration {
    const { payment, signal } = start;
    const generation = new PaidGeneration(source, { payment, modelId: start.candidate.model.id, upstream, onBroadcast: start.suspendTimeout });
    const capMs = this.config.http.streamMaxMs;
    const cap = setTimeout(() => upstream.abort(new StreamCapReached(capMs)), capMs);
    const onAbort = (): void => {
      if ((signal.reason as { name?: unknown } | undefined)?.name === 'ClientDisconnected') generation.originalLeft();
      else if (!payment.broadcasted) upstream.abort(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    this.live.set(payment.replayKey, { fingerprint: start.fingerprint, generation, receiptPath: payment.receiptPath });
    this.background.run('paid generation', () =>
      this.conclude(generation, start).finally(() => {
        clearTimeout(cap);
        ended();
        signal.removeEventListener('abort', onAbort);
        this.live.delete(payment.replayKey);
      }),
    );
    return generation;
  }

  /**
   * The answer for a resend of a used payment, when its original client left before receiving all
   * of it and the resend is the same request: the generation still running, or the kept answer.
   */
  async redeliver(replayKey: string, fingerprint: string): Promise<Redelivery | null> {
    const running = this.live.get(replayKey);
    if (running) {
      const { generation } = running;
      return running.fingerprint === fingerprint && generation.originalGone ? { kind: 'live', generation, receiptPath: running.receiptPath } : null;
    }
    const kept = await this.redelivery.find(replayKey);
    return kept && kept.fingerprint === fingerprint ? { kind: 'kept', completion: kept.completion, whole: kept.whole, receiptPath: kept.receiptPath } : null;
  }

  private async conclude(generation: PaidGeneration, start: PaidStart): Promise<void> {
    const end = await generation.ended;
    if (end.kind === 'error') return;
    // The client has stopped reading, or its connection closed (whatever its reader did).
    await Promise.race([generation.originalFinished, aborted(start.signal)]);
    const { payment } = start;
    await payment.recordDelivery(generation.delivery(end));
    const paid = end.settlement.status !== 'failed';
    this.record(start, end);
    if (paid && generation.originalReceived !== 'all') {
      // The payment stays "used" as long as its answer is kept, or a resend would meet the chain checks instead.
      await payment.holdFor(this.config.settlement.redeliveryTtlMs);
      await this.redelivery.keep(payment.replayKey, { fingerprint: start.fingerprint, completion: end.completion, whole: end.whole, receiptPath: payment.receiptPath }, this.config.settlement.redeliveryTtlMs);
    }
    if (paid && end.whole && start.cacheable) {
      const key = start.cacheable;
      this.background.run('cache write', () => this.cache.set(key, end.completion, this.config.limits.cacheTtlSecs));
    }
  }

  private record(start: PaidStart, end: Extract<GenerationEnd, { kind: 'answer' }>): void {
    const { usage } = end.completion;
    this.background.run('spend log', () =>
      this.spendLog.record({
        requestId: start.requestId,
        payerWallet: start.payment.payer,
        model: start.candidate.model.id,
        provider: start.candidate.model.provider,
        tokensIn: usage?.prompt_tokens ?? start.inputTokens,
        tokensOut: usage?.completion_tokens ?? 0,
        amountChargedAtomic: end.settlement.status === 'failed' ? 0n : start.payment.amountPaid,
        createdAt: new Date(),
      }),
    );
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
    for (const { payment, upstream } of this.calls) {
      upstream.abort(new GatewayError('service_unavailable', payment.broadcasted ? 'the gateway is shutting down' : 'the gateway is shutting down; the payment was not used, retry shortly'));
    }
    await sleep(SHUTDOWN_MARGIN_MS / 2);
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
