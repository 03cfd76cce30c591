import { Injectable } from '@nestjs/common';
import type { PaidPayment } from '../../payments/application/paid-payment';
import { UpstreamDispatcher } from '../../providers/application/upstream-dispatcher';
import type { ChatCompletionChunk } from '../../providers/domain/chat-completion';
import type { RequestAdjustments } from '../../providers/ports/llm-provider';
import { fromArray, timed } from '../domain/async-items';
import { candidatesWithin, type ChatPlan, type PricedCandidate } from '../domain/chat-plan';
import { completionChunks } from '../domain/completion-stream';
import { AnswerCache } from './answer-cache';
import type { CompletionCaller, ServedAnswer } from './completion-outcome';
import { dispatchTargets } from './dispatch-targets';

/** A paid answer's source, once it has started, and what it is. */
export interface PaidSource {
  source: AsyncIterable<ChatCompletionChunk>;
  candidate: PricedCandidate;
  fallback: boolean;
  cache: ServedAnswer['cache'];
  adjustments?: () => RequestAdjustments;
  /** The cache key to keep a whole answer under: the primary candidate's, on a miss. */
  cacheable: string | null;
}

/**
 * Where a paid answer comes from: the cache, or the first candidate the amount paid covers that
 * starts answering (always streamed, so the payment can be broadcast at its first content).
 */
@Injectable()
export class PaidAnswerSource {
  constructor(
    private readonly dispatcher: UpstreamDispatcher,
    private readonly answers: AnswerCache,
  ) {}

  /** `signal` is the paid call's: the client leaving does not stop it. */
  async open(plan: ChatPlan, payment: PaidPayment, caller: CompletionCaller, signal: AbortSignal): Promise<PaidSource> {
    const candidates = candidatesWithin(plan, payment.amountPaid);
    const primary = candidates[0];
    const key = this.answers.keyOf(caller.surface.path, plan.request, primary);
    const cached = await this.answers.lookup(key);
    if (cached) return { source: fromArray(completionChunks(cached, true)), candidate: primary, fallback: false, cache: 'hit', cacheable: null };
    const calling = performance.now();
    try {
      if (signal.aborted) throw signal.reason;
      const { index, reply, adjustments } = await this.dispatcher.dispatch(dispatchTargets(candidates, plan.request, true), signal, caller.requestId);
      const candidate = candidates[index];
      const source =
        reply.kind === 'stream' ? timed(reply.chunks, () => caller.timing.upstream(candidate.model.provider, performance.now() - calling)) : fromArray(completionChunks(reply.completion, true));
      return { source, candidate, fallback: index > 0, cache: 'miss', cacheable: index === 0 ? key : null, adjustments };
    } catch (err) {
      caller.timing.upstream('none', performance.now() - calling);
      throw err;
    }
  }
}
