import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { SpendRecorder } from '../../billing/application/spend-recorder';
import { UpstreamDispatcher } from '../../providers/application/upstream-dispatcher';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import { UpstreamError } from '../../providers/domain/upstream-error';
import { rateLimitHeaders } from '../../rate-limits/domain/rate-limit-headers';
import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';
import { fromArray } from '../domain/async-items';
import { candidatesWithin, type ChatPlan, type PricedCandidate } from '../domain/chat-plan';
import { CompletionAssembler, completionChunks } from '../domain/completion-stream';
import { midStreamError } from '../domain/mid-stream-error';
import { StreamCapReached } from '../domain/stream-cap';
import { AnswerCache } from './answer-cache';
import type { CompletionCaller, CompletionOutcome, ServedAnswer } from './completion-outcome';
import { dispatchTargets } from './dispatch-targets';

/** A free answer on its way: who asked, what was planned, the candidate answering, and its cache key (null: not kept). */
interface FreeAnswer {
  caller: CompletionCaller;
  plan: ChatPlan;
  candidate: PricedCandidate;
  cacheable: string | null;
}

/**
 * A free answer (spec 1.8), once its windows and the guard passed: from the cache or from the
 * first candidate that answers; it stops when its client leaves. A whole answer is logged and
 * cached before the stream's end reaches the client.
 */
@Injectable()
export class FreeServing {
  private readonly streamMaxMs: number;

  constructor(
    private readonly dispatcher: UpstreamDispatcher,
    private readonly answers: AnswerCache,
    private readonly spend: SpendRecorder,
    config: GatewayConfig,
  ) {
    this.streamMaxMs = config.http.streamMaxMs;
  }

  /** `perClient`: the client's free window, whose headers the answer carries. */
  async serve(plan: ChatPlan, caller: CompletionCaller, perClient: RateDecision): Promise<CompletionOutcome> {
    const served = await this.answer(plan, caller);
    return { kind: 'served', plan, served, headers: rateLimitHeaders(perClient), paymentStatus: null };
  }

  private async answer(plan: ChatPlan, caller: CompletionCaller): Promise<ServedAnswer> {
    const { request } = plan;
    const candidates = candidatesWithin(plan, 0n);
    const primary = candidates[0];
    const key = this.answers.keyOf(caller.surface.path, request, primary);
    const cached = await this.answers.lookup(key);
    if (cached) {
      const answer: FreeAnswer = { caller, plan, candidate: primary, cacheable: null };
      if (request.stream !== true) this.record(answer, cached.usage);
      const body: ServedAnswer['body'] =
        request.stream === true ? { kind: 'stream', chunks: this.relay(fromArray(completionChunks(cached, true)), answer, null, null) } : { kind: 'json', completion: cached };
      return { model: primary.model, fallback: false, cache: 'hit', body };
    }

    // The client leaving or timing out stops a free call; so does the stream cap once it streams.
    // Combined only for a stream: AbortSignal.any costs a JSON answer, which the cap never cuts, an allocation of listeners.
    const cap = request.stream === true ? new AbortController() : null;
    const calling = performance.now();
    let dispatched;
    try {
      dispatched = await this.dispatcher.dispatch(dispatchTargets(candidates, request, request.stream === true), cap ? AbortSignal.any([caller.signal, cap.signal]) : caller.signal, caller.requestId);
    } catch (err) {
      caller.timing.upstream('none', performance.now() - calling);
      throw err;
    }
    const { index, reply, adjustments } = dispatched;
    const candidate = candidates[index];
    const answer: FreeAnswer = { caller, plan, candidate, cacheable: key !== null && index === 0 ? key : null };
    const served = { model: candidate.model, fallback: index > 0, cache: 'miss', adjustments } as const;
    if (reply.kind === 'json') {
      caller.timing.upstream(candidate.model.provider, performance.now() - calling);
      const completion = { ...reply.completion, model: candidate.model.id };
      this.deliver(answer, completion);
      return { ...served, body: { kind: 'json', completion } };
    }
    return { ...served, body: { kind: 'stream', chunks: this.relay(reply.chunks, answer, calling, cap) } };
  }

  /** Passes a free stream through under our model id; once it has ended whole, logs it and caches it before [DONE]. */
  private async *relay(
    chunks: AsyncIterable<ChatCompletionChunk>,
    answer: FreeAnswer,
    /** When the upstream was called; null for a cached answer replayed as a stream. */
    calling: number | null,
    /** Stops the upstream call at GW_STREAM_MAX_SECS; null for a cached answer. */
    cap: AbortController | null,
  ): AsyncGenerator<ChatCompletionChunk> {
    const { caller, candidate } = answer;
    const assembler = new CompletionAssembler();
    const timer = cap ? setTimeout(() => cap.abort(new StreamCapReached(this.streamMaxMs)), this.streamMaxMs) : undefined;
    try {
      for await (const upstream of chunks) {
        const chunk = { ...upstream, model: candidate.model.id };
        assembler.add(chunk);
        yield chunk;
      }
    } catch (err) {
      throw err instanceof UpstreamError ? midStreamError(err) : err;
    } finally {
      clearTimeout(timer);
    }
    if (calling !== null) caller.timing.upstream(candidate.model.provider, performance.now() - calling);
    const completion = assembler.result();
    if (!completion) throw new GatewayError('upstream.stream_incomplete', 'the upstream stream ended before the answer was complete');
    this.deliver(answer, completion);
  }

  /** A whole free answer: log it and cache it, unless its client already left. */
  private deliver(answer: FreeAnswer, completion: ChatCompletion): void {
    const { caller, cacheable } = answer;
    if (caller.signal.aborted) throw caller.signal.reason;
    this.record(answer, completion.usage);
    if (cacheable) this.answers.keep(cacheable, completion);
  }

  private record({ caller, plan, candidate }: FreeAnswer, usage: ChatCompletion['usage']): void {
    this.spend.answer({ requestId: caller.requestId, payer: null, model: candidate.model, usage, estimatedInputTokens: plan.inputTokens, charged: 0n });
  }
}
