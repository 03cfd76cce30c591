import { Injectable } from '@nestjs/common';
import { AppLogger } from '../../../logging/app-logger';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { BackgroundTasks } from '../../../core/background-tasks';
import { SpendLog } from '../../billing/ports/spend-log';
import { PaymentAcceptance } from '../../payments/application/payment-acceptance';
import { PaymentAttempts, type CountedAttempt } from '../../payments/application/payment-attempts';
import { PaidRateLimit } from '../../payments/application/paid-rate-limit';
import { PaymentChallenges, type Challenge } from '../../payments/application/payment-challenges';
import type { PaidPayment } from '../../payments/application/paid-payment';
import { EscrowDeposits } from '../../payments/application/escrow-deposits';
import { PaymentReplayed } from '../../payments/domain/payment-errors';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import { UpstreamError } from '../../providers/domain/upstream-error';
import { midStreamError } from '../domain/mid-stream-error';
import { UpstreamDispatcher } from '../../providers/application/upstream-dispatcher';
import type { RequestAdjustments } from '../../providers/ports/llm-provider';
import { rateLimitHeaders } from '../../rate-limits/domain/rate-limit-headers';
import { UnpaidBudget } from '../../rate-limits/application/unpaid-budget';
import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';
import type { CatalogModel } from '../../routing/domain/catalog';
import { cacheKey } from '../domain/cache-key';
import { involvesMarketData } from '../domain/market-data-tools';
import { candidatesWithin, quoteOf, type ChatPlan, type PricedCandidate } from '../domain/chat-plan';
import { dispatchTargets } from './dispatch-targets';
import type { ChatRequest } from '../../providers/domain/chat-request';
import { messageText } from '../../providers/domain/chat-request';
import type { StageTiming } from '../../../core/stage-timing';
import { CHAT_DISCOVERY } from '../domain/chat-discovery';
import { CompletionAssembler, completionChunks } from '../domain/completion-stream';
import { requestFingerprint } from '../domain/request-fingerprint';
import { StreamCapReached } from '../domain/stream-cap';
import { PromptGuard } from '../domain/prompt-guard';
import { SessionTokenSigner } from '../domain/session-token';
import { ResponseCache } from '../ports/response-cache';
import { ChatMetrics } from './chat-metrics';
import { ChatPlanner } from './chat-planner';
import { FreeTierLimit } from './free-tier-limit';
import type { GenerationEnd } from './paid-generation';
import { PaidGenerations, type Redelivery } from './paid-generations';

export const CHAT_PATH = '/v1/chat/completions';

/** The caller as the HTTP edge (or another adapter) knows it. */
export interface ChatCaller {
  requestId: string;
  /** The TCP peer address; 'unknown' when the socket had none. */
  clientAddress: string;
  signal: AbortSignal;
  /** The raw PAYMENT-SIGNATURE header, if any. */
  paymentHeader: string | undefined;
  /** The request body's size in bytes: what it costs in the client's unpaid budget. */
  bodyBytes: number;
  /** A valid X-Session-Id, if any. */
  sessionId: string | undefined;
  /** Where upstream and payment time are recorded for the metrics. */
  timing: StageTiming;
  /** Stops GW_REQUEST_TIMEOUT_SECS from cutting this request (its payment was broadcast). */
  suspendTimeout: () => void;
  /** The request accepted a payment with this receipt: whatever error ends it from now on (a 408, a 503) names it. */
  noteReceipt: (receiptPath: string) => void;
}

/** What answered and how; the body is a whole completion or a stream that ends after everything is recorded. */
export interface ServedChat {
  model: CatalogModel;
  fallback: boolean;
  cache: 'hit' | 'miss';
  /** What the answering provider dropped or rewrote (asked only for the debug headers); absent when no provider was called. */
  adjustments?: () => RequestAdjustments;
  body: { kind: 'json'; completion: ChatCompletion } | { kind: 'stream'; chunks: AsyncIterable<ChatCompletionChunk> };
}

/** A free answer on its way: who asked, what was planned, the candidate answering, and its cache key (null: not kept). */
interface FreeAnswer {
  caller: ChatCaller;
  plan: ChatPlan;
  candidate: PricedCandidate;
  cacheable: string | null;
}

/** A paid answer's source, once it has started, and what it is. */
interface PaidSource {
  source: AsyncIterable<ChatCompletionChunk>;
  candidate: PricedCandidate;
  fallback: boolean;
  cache: ServedChat['cache'];
  adjustments?: () => RequestAdjustments;
  /** The cache key to keep a whole answer under: the primary candidate's, on a miss. */
  cacheable: string | null;
}

export type ChatOutcome =
  { kind: 'quote'; plan: ChatPlan; challenge: Challenge } | { kind: 'served'; plan: ChatPlan; served: ServedChat; headers: Record<string, string>; paymentStatus: string | null };

/**
 * POST /v1/chat/completions (spec 4.1): the client's per-IP window, the plan, then the free path
 * (guard, provider) or the paid one (guard, then a 402 quote until a payment comes; then the
 * settlement lifecycle of docs/decisions.md, "Money moves exactly once (1 of 2)", through PaidGenerations).
 */
@Injectable()
export class ChatCompletions {
  private readonly cacheTtlSecs: number;
  private readonly streamMaxMs: number;
  private readonly guard = new PromptGuard();
  private readonly sessions: SessionTokenSigner;

  constructor(
    private readonly planner: ChatPlanner,
    private readonly challenges: PaymentChallenges,
    private readonly payments: PaymentAcceptance,
    private readonly attempts: PaymentAttempts,
    private readonly deposits: EscrowDeposits,
    private readonly paidRateLimit: PaidRateLimit,
    private readonly unpaid: UnpaidBudget,
    private readonly dispatcher: UpstreamDispatcher,
    private readonly freeTier: FreeTierLimit,
    private readonly cache: ResponseCache,
    private readonly generations: PaidGenerations,
    private readonly spendLog: SpendLog,
    private readonly background: BackgroundTasks,
    private readonly logger: AppLogger,
    private readonly metrics: ChatMetrics,
    config: GatewayConfig,
  ) {
    this.cacheTtlSecs = config.limits.cacheTtlSecs;
    this.streamMaxMs = config.http.streamMaxMs;
    this.sessions = new SessionTokenSigner(config.sessionSecret.reveal());
    logger.setContext(ChatCompletions.name);
  }

  /**
   * The client's per-IP window comes before any work on the text (the router's score, the
   * estimate, the guard), so one address cannot spend the gateway's CPU without bound
   * (docs/decisions.md, "Limits before the work"). The name alone says which window applies.
   */
  async handle(request: ChatRequest, caller: ChatCaller): Promise<ChatOutcome> {
    const charge = this.planner.charge(request);
    const freeWindow = charge === 'free' ? await this.freeTier.admit(caller.clientAddress, caller.bodyBytes) : null;
    const attempt = charge !== 'free' ? await this.admitUnpaid(caller) : null;
    const plan = this.planner.plan(request);
    // A profile that routed to a free model: its body was counted in the unpaid budget already.
    if (quoteOf(plan).total === 0n) return this.serveFree(plan, caller, freeWindow ?? (await this.freeTier.admit(caller.clientAddress, 0)));
    this.inspect(plan);
    if (caller.paymentHeader === undefined)
      return { kind: 'quote', plan, challenge: this.challenges.challenge(CHAT_PATH, quoteOf(plan), CHAT_DISCOVERY, this.deposits.offerFor(quoteOf(plan).total) ?? undefined) };
    return this.servePaid(plan, caller, caller.paymentHeader, attempt ?? (await this.attempts.count(caller.clientAddress)));
  }

  /**
   * Spec 8's per-IP buckets for a request not paid yet: a quote counts in the client's paid
   * bucket, a payment-bearing request (a replay or a redelivery too) as a payment attempt; the
   * wallet's own limit follows once its signature verifies. The attempt is what `accept` needs.
   */
  private async admitUnpaid(caller: ChatCaller): Promise<CountedAttempt | null> {
    const { clientAddress } = caller;
    const attempt = caller.paymentHeader !== undefined ? await this.attempts.count(clientAddress) : null;
    if (attempt === null) await this.paidRateLimit.admitClient(clientAddress);
    await this.unpaid.charge(clientAddress, caller.bodyBytes);
    return attempt;
  }

  /**
   * Spec 4.1 steps 5-8 with `exact`: the payment is verified and claimed; the answer is produced
   * detached from the connection, always streamed from the upstream; the payment is broadcast at
   * its first content; a JSON answer is sent once it and the confirmation are in. A used payment
   * whose client left early may get its answer again (redelivery).
   */
  private async servePaid(plan: ChatPlan, caller: ChatCaller, header: string, attempt: CountedAttempt): Promise<ChatOutcome> {
    const quote = quoteOf(plan);
    const verifying = performance.now();
    let payment: PaidPayment;
    try {
      payment = await this.payments.accept(header, {
        schemes: ['exact', 'escrow'],
        exactSettlesAt: 'at_first_content',
        path: CHAT_PATH,
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
          const again = await this.generations.redeliver(err.replayKey, requestFingerprint(plan.request));
          if (again) return this.redeliver(plan, again, caller);
        } catch (keptAnswerRefused) {
          refused = keptAnswerRefused;
        }
      }
      // An x402 client reads why from the headers.
      throw this.challenges.refusal(refused, CHAT_PATH, quote, '');
    } finally {
      caller.timing.payment('verify', performance.now() - verifying);
    }
    if (payment.receiptPath) caller.noteReceipt(payment.receiptPath);
    await this.unpaid.refund(caller.clientAddress, caller.bodyBytes);
    const headers: Record<string, string> = {
      'X-Gw-Session': this.sessions.sign({ sid: caller.sessionId ?? caller.requestId, wallet: payment.payer, iat: Math.floor(Date.now() / 1000) }),
      ...rateLimitHeaders(payment.rateLimit),
    };
    if (payment.receiptPath) headers['X-Gw-Receipt'] = payment.receiptPath;

    const fingerprint = requestFingerprint(plan.request);
    const call = this.generations.open(payment, caller.signal);
    let answer: PaidSource;
    try {
      answer = await this.paidSource(plan, payment, caller, call.upstream.signal);
    } catch (err) {
      this.generations.close(call);
      await payment.release();
      throw err;
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
        throw this.challenges.refusal(err, CHAT_PATH, quote, payment.transactionSignature);
      }
    }
    const served = (body: ServedChat['body']): ServedChat => ({ model: candidate.model, fallback, cache, adjustments, body });
    if (stream) {
      const response = payment.broadcasted ? await payment.firstContentResponse() : null;
      if (response) headers['PAYMENT-RESPONSE'] = response;
      return { kind: 'served', plan, served: served({ kind: 'stream', chunks: forClient(generation.listen(true), plan) }), headers, paymentStatus: 'verified' };
    }
    const end = await generation.ended;
    caller.timing.payment('settle', performance.now() - settling);
    if (caller.signal.aborted) generation.originalLeft();
    else generation.originalReceivedAll();
    let completion: ChatCompletion;
    try {
      completion = answerOf(end);
    } catch (err) {
      throw this.challenges.refusal(err, CHAT_PATH, quote, payment.transactionSignature);
    }
    if (end.kind === 'answer' && end.settlement.paymentResponse) headers['PAYMENT-RESPONSE'] = end.settlement.paymentResponse;
    return { kind: 'served', plan, served: served({ kind: 'json', completion }), headers, paymentStatus: end.kind === 'answer' ? end.settlement.status : null };
  }

  /**
   * Where a paid answer comes from: the cache, or the first candidate the amount paid covers that
   * starts answering (always streamed). `signal` is the paid call's: the client leaving does not stop it.
   */
  private async paidSource(plan: ChatPlan, payment: PaidPayment, caller: ChatCaller, signal: AbortSignal): Promise<PaidSource> {
    const candidates = candidatesWithin(plan, payment.amountPaid);
    const primary = candidates[0];
    const key = this.cacheKeyOf(plan.request, primary);
    const cached = await this.cached(key);
    if (cached) return { source: fromArray(completionChunks(cached, true)), candidate: primary, fallback: false, cache: 'hit', cacheable: null };
    const calling = performance.now();
    try {
      if (signal.aborted) throw signal.reason;
      const { index, reply, adjustments } = await this.dispatcher.dispatch(dispatchTargets(candidates, plan.request, true), signal);
      const candidate = candidates[index];
      const source =
        reply.kind === 'stream' ? timed(reply.chunks, () => caller.timing.upstream(candidate.model.provider, performance.now() - calling)) : fromArray(completionChunks(reply.completion, true));
      return { source, candidate, fallback: index > 0, cache: 'miss', cacheable: index === 0 ? key : null, adjustments };
    } catch (err) {
      caller.timing.upstream('none', performance.now() - calling);
      throw err;
    }
  }

  /** A paid answer given again, in the form the resend asks, with no second charge. */
  private async redeliver(plan: ChatPlan, again: Redelivery, caller: ChatCaller): Promise<ChatOutcome> {
    this.logger.info({ request_id: caller.requestId }, 'paid answer redelivered');
    const model = plan.candidates[0].model;
    const headers: Record<string, string> = { 'X-Gw-Redelivered': 'true' };
    if (again.receiptPath) headers['X-Gw-Receipt'] = again.receiptPath;
    const served = (body: ServedChat['body']): ChatOutcome => ({ kind: 'served', plan, served: { model, fallback: false, cache: 'miss', body }, headers, paymentStatus: null });
    if (plan.request.stream === true) {
      const chunks = again.kind === 'live' ? again.generation.listen(false) : keptChunks(again.completion, again.whole);
      return served({ kind: 'stream', chunks: forClient(chunks, plan) });
    }
    return served({ kind: 'json', completion: again.kind === 'live' ? answerOf(await again.generation.ended) : again.completion });
  }

  /** Spec 1.8 and 8: per-IP limit, then the global cap (both passed: `perClient`), then the prompt guard, then the provider. A payment header is ignored. */
  private async serveFree(plan: ChatPlan, caller: ChatCaller, perClient: RateDecision): Promise<ChatOutcome> {
    this.inspect(plan);
    const served = await this.serve(plan, caller);
    return { kind: 'served', plan, served, headers: rateLimitHeaders(perClient), paymentStatus: null };
  }

  private inspect(plan: ChatPlan): void {
    const verdict = this.guard.inspect(plan.request.messages.map(messageText));
    if (!verdict.blocked) return;
    this.logger.info({ category: verdict.category, rule: verdict.rule }, 'request blocked by the prompt guard');
    throw new GatewayError('chat.content_blocked', 'Request blocked by content policy');
  }

  /** A free answer from the cache or from the first candidate that answers; it stops when its client leaves. */
  private async serve(plan: ChatPlan, caller: ChatCaller): Promise<ServedChat> {
    const { request } = plan;
    const candidates = candidatesWithin(plan, 0n);
    const primary = candidates[0];
    const key = this.cacheKeyOf(request, primary);
    const cached = await this.cached(key);
    if (cached) {
      const answer: FreeAnswer = { caller, plan, candidate: primary, cacheable: null };
      if (request.stream !== true) this.record(answer, cached.usage);
      const body: ServedChat['body'] =
        request.stream === true ? { kind: 'stream', chunks: this.relay(fromArray(completionChunks(cached, true)), answer, null, null) } : { kind: 'json', completion: cached };
      return { model: primary.model, fallback: false, cache: 'hit', body };
    }

    // The client leaving or timing out stops a free call; so does the stream cap once it streams.
    const cap = new AbortController();
    const calling = performance.now();
    let dispatched;
    try {
      dispatched = await this.dispatcher.dispatch(dispatchTargets(candidates, request, request.stream === true), AbortSignal.any([caller.signal, cap.signal]));
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
    const { caller, plan, candidate } = answer;
    const assembler = new CompletionAssembler();
    const showUsage = plan.request.stream_options?.include_usage === true;
    const timer = cap ? setTimeout(() => cap.abort(new StreamCapReached(this.streamMaxMs)), this.streamMaxMs) : undefined;
    try {
      for await (const upstream of chunks) {
        const chunk = { ...upstream, model: candidate.model.id };
        assembler.add(chunk);
        const shown = asShown(chunk, showUsage);
        if (shown) yield shown;
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

  /** The answer kept under `key`, counted as a hit or a miss; a request that may not be cached (null key) looks nothing up. */
  private async cached(key: string | null): Promise<ChatCompletion | null> {
    if (!key) return null;
    const completion = await this.cache.get(key);
    this.metrics.cacheLookup(completion ? 'hit' : 'miss');
    return completion;
  }

  /** Where the answer is kept, or null when it is not: caching off, or market-data tools involved (spec 1.7). */
  private cacheKeyOf(request: ChatRequest, primary: PricedCandidate): string | null {
    if (this.cacheTtlSecs <= 0 || involvesMarketData(request)) return null;
    return cacheKey(primary.model.id, request, primary.outputTokens);
  }

  /** A whole free answer: log it and cache it, unless its client already left. */
  private deliver(answer: FreeAnswer, completion: ChatCompletion): void {
    const { caller, cacheable } = answer;
    if (caller.signal.aborted) throw caller.signal.reason;
    this.record(answer, completion.usage);
    if (cacheable) this.background.run('cache write', () => this.cache.set(cacheable, completion, this.cacheTtlSecs));
  }

  private record({ caller, plan, candidate }: FreeAnswer, usage: ChatCompletion['usage']): void {
    this.background.run('spend log', () =>
      this.spendLog.record({
        requestId: caller.requestId,
        payerWallet: null,
        model: candidate.model.id,
        provider: candidate.model.provider,
        tokensIn: usage?.prompt_tokens ?? plan.inputTokens,
        tokensOut: usage?.completion_tokens ?? 0,
        amountChargedAtomic: 0n,
        createdAt: new Date(),
      }),
    );
  }
}

/** The JSON answer of a paid generation: whole, or cut after the broadcast (`finish_reason: null`); an error throws. */
function answerOf(end: GenerationEnd): ChatCompletion {
  if (end.kind === 'error') throw end.error;
  if (end.settlement.status === 'failed' && end.error) throw end.error;
  return end.completion;
}

/** Chunks as the client asked for them: usage only with `stream_options.include_usage`. */
async function* forClient(chunks: AsyncIterable<ChatCompletionChunk>, plan: ChatPlan): AsyncGenerator<ChatCompletionChunk> {
  const showUsage = plan.request.stream_options?.include_usage === true;
  for await (const chunk of chunks) {
    const shown = asShown(chunk, showUsage);
    if (shown) yield shown;
  }
}

/** A chunk as the client sees it: without usage unless asked, and a usage-only chunk not at all then. */
function asShown(chunk: ChatCompletionChunk, showUsage: boolean): ChatCompletionChunk | null {
  if (showUsage) return chunk;
  if (chunk.choices.length === 0) return null;
  const { usage: _usage, ...rest } = chunk;
  return rest;
}

/** A kept answer as a stream: one that was cut ends with the error event its first client got, never [DONE]. */
async function* keptChunks(completion: ChatCompletion, whole: boolean): AsyncGenerator<ChatCompletionChunk> {
  yield* completionChunks(completion, true);
  if (!whole) throw new GatewayError('upstream.stopped_mid_stream', 'the upstream provider stopped mid-stream; this is all of the answer that was paid for');
}

/** The stream, reporting when it ended (the upstream time of the metrics). */
async function* timed<T>(items: AsyncIterable<T>, ended: () => void): AsyncGenerator<T> {
  yield* items;
  ended();
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
