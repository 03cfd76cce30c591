import { Injectable } from '@nestjs/common';
import { AppLogger } from '../../../logging/app-logger';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { BackgroundTasks } from '../../../lifecycle/background-tasks';
import { SpendLog } from '../../billing/ports/spend-log';
import { ExactPayments } from '../../payments/application/exact-payments';
import { PaidRateLimit } from '../../payments/application/paid-rate-limit';
import { PaymentChallenges, type Challenge } from '../../payments/application/payment-challenges';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import { UpstreamError } from '../../providers/domain/upstream-error';
import { UpstreamDispatcher } from '../../providers/application/upstream-dispatcher';
import { rateLimitHeaders } from '../../rate-limits/domain/rate-limit-headers';
import type { CatalogModel } from '../../routing/domain/catalog';
import { cacheKey } from '../domain/cache-key';
import { candidatesWithin, quoteOf, type ChatPlan, type PricedCandidate } from '../domain/chat-plan';
import type { ChatRequest } from '../domain/chat-request';
import { messageText } from '../domain/chat-request';
import type { StageTiming } from '../../ops/domain/stage-timing';
import { CHAT_DISCOVERY } from '../domain/chat-discovery';
import { CompletionAssembler, completionChunks } from '../domain/completion-stream';
import { PromptGuard } from '../domain/prompt-guard';
import { SessionTokenSigner } from '../domain/session-token';
import { ResponseCache } from '../ports/response-cache';
import { ChatPlanner } from './chat-planner';
import { FreeTierLimit } from './free-tier-limit';

export const CHAT_PATH = '/v1/chat/completions';

/** The caller as the HTTP edge (or another adapter) knows it. */
export interface ChatCaller {
  requestId: string;
  /** The TCP peer address; 'unknown' when the socket had none. */
  clientAddress: string;
  signal: AbortSignal;
  /** The raw PAYMENT-SIGNATURE header, if any. */
  paymentHeader: string | undefined;
  /** A valid X-Session-Id, if any. */
  sessionId: string | undefined;
  /** Where upstream and payment time are recorded for the metrics. */
  timing: StageTiming;
}

/** What answered and how; the body is a whole completion or a stream that ends after everything is recorded. */
export interface ServedChat {
  model: CatalogModel;
  fallback: boolean;
  cache: 'hit' | 'miss';
  body: { kind: 'json'; completion: ChatCompletion } | { kind: 'stream'; chunks: AsyncIterable<ChatCompletionChunk> };
}

export type ChatOutcome =
  | { kind: 'quote'; plan: ChatPlan; challenge: Challenge }
  | { kind: 'served'; plan: ChatPlan; served: ServedChat; headers: Record<string, string>; paymentStatus: string | null };

/**
 * How a request pays for its answer: `complete` runs once the whole answer is in hand (before a
 * JSON body is sent, before a stream's [DONE]) and returns the amount charged; `abandon` runs when
 * nothing was delivered. Free requests complete for nothing.
 */
interface Delivery {
  payerWallet: string | null;
  complete(servedModel: string): Promise<bigint>;
  abandon(): Promise<void>;
}

const FREE_DELIVERY: Delivery = { payerWallet: null, complete: () => Promise.resolve(0n), abandon: () => Promise.resolve() };

/**
 * POST /v1/chat/completions (spec 4.1): plan, then the free path (limits, guard, provider) or the
 * paid one (guard, then a 402 quote until a payment comes).
 */
@Injectable()
export class ChatCompletions {
  private readonly cacheTtlSecs: number;
  private readonly guard = new PromptGuard();
  private readonly sessions: SessionTokenSigner;

  constructor(
    private readonly planner: ChatPlanner,
    private readonly challenges: PaymentChallenges,
    private readonly payments: ExactPayments,
    private readonly paidRateLimit: PaidRateLimit,
    private readonly dispatcher: UpstreamDispatcher,
    private readonly freeTier: FreeTierLimit,
    private readonly cache: ResponseCache,
    private readonly spendLog: SpendLog,
    private readonly background: BackgroundTasks,
    private readonly logger: AppLogger,
    config: GatewayConfig,
  ) {
    this.cacheTtlSecs = config.limits.cacheTtlSecs;
    this.sessions = new SessionTokenSigner(config.sessionSecret.reveal());
    logger.setContext(ChatCompletions.name);
  }

  async handle(request: ChatRequest, caller: ChatCaller): Promise<ChatOutcome> {
    const plan = this.planner.plan(request);
    if (quoteOf(plan).total === 0n) return this.serveFree(plan, caller);
    this.inspect(plan);
    if (caller.paymentHeader === undefined) {
      await this.paidRateLimit.admitClient(caller.clientAddress);
      return { kind: 'quote', plan, challenge: this.challenges.challenge(CHAT_PATH, quoteOf(plan), CHAT_DISCOVERY) };
    }
    return this.servePaid(plan, caller, caller.paymentHeader);
  }

  /**
   * Spec 4.1 steps 5-8 with `exact`: the payment is verified and claimed first; the answer is
   * produced; the payment settles once the answer is complete (before a JSON body is sent, before
   * a stream's [DONE]); if nothing was delivered it is given back unbroadcast.
   */
  private async servePaid(plan: ChatPlan, caller: ChatCaller, header: string): Promise<ChatOutcome> {
    const quote = quoteOf(plan);
    const verifying = performance.now();
    const payment = await this.payments
      .accept(header, {
        path: CHAT_PATH,
        quote: quote.total,
        requestId: caller.requestId,
        clientAddress: caller.clientAddress,
        model: plan.candidates[0].model.id,
        exclusiveSource: plan.request.stream === true,
      })
      .finally(() => caller.timing.payment('verify', performance.now() - verifying));
    const headers: Record<string, string> = {
      'X-Gw-Session': this.sessions.sign({ sid: caller.sessionId ?? caller.requestId, wallet: payment.payer, iat: Math.floor(Date.now() / 1000) }),
      ...rateLimitHeaders(payment.rateLimit),
    };
    if (payment.receiptPath) headers['X-Gw-Receipt'] = payment.receiptPath;
    let settledResponse: string | null = null;
    const delivery: Delivery = {
      payerWallet: payment.payer,
      complete: async (servedModel) => {
        const settling = performance.now();
        const settled = await payment.settle(servedModel).finally(() => caller.timing.payment('settle', performance.now() - settling));
        settledResponse = settled.paymentResponse;
        return settled.amountChargedAtomic;
      },
      abandon: () => payment.abandon(),
    };
    const served = await this.serve(plan, payment.amountPaid, caller, delivery);
    // A JSON answer has settled by now; a stream settles before its [DONE].
    if (settledResponse) headers['PAYMENT-RESPONSE'] = settledResponse;
    return { kind: 'served', plan, served, headers, paymentStatus: settledResponse ? 'settled' : 'verified' };
  }

  /** Spec 1.8 and 8: per-IP limit, then the global cap, then the prompt guard, then the provider. A payment header is ignored. */
  private async serveFree(plan: ChatPlan, caller: ChatCaller): Promise<ChatOutcome> {
    const perClient = await this.freeTier.admit(caller.clientAddress);
    this.inspect(plan);
    const served = await this.serve(plan, 0n, caller, FREE_DELIVERY);
    return { kind: 'served', plan, served, headers: rateLimitHeaders(perClient), paymentStatus: null };
  }

  private inspect(plan: ChatPlan): void {
    const verdict = this.guard.inspect(plan.request.messages.map(messageText));
    if (!verdict.blocked) return;
    this.logger.info({ category: verdict.category, rule: verdict.rule }, 'request blocked by the prompt guard');
    throw new GatewayError('bad_request', 'Request blocked by content policy');
  }

  /**
   * The answer from the cache or from the first candidate `budget` covers that answers. A JSON
   * answer returns delivered (paid for); a stream is delivered as it is read, ends only after the
   * delivery completed, and throws (as GatewayError) when the upstream or the settlement fails.
   */
  private async serve(plan: ChatPlan, budget: bigint, caller: ChatCaller, delivery: Delivery): Promise<ServedChat> {
    const { request } = plan;
    const candidates = candidatesWithin(plan, budget);
    const primary = candidates[0];
    const key = this.cacheTtlSecs > 0 ? cacheKey(primary.model.id, request, primary.outputTokens) : null;
    const cached = key ? await this.cache.get(key) : null;
    if (cached) {
      if (request.stream !== true) await this.deliver(caller, plan, primary, cached, delivery, null);
      return { model: primary.model, fallback: false, cache: 'hit', body: this.cachedBody(cached, plan, caller, primary, delivery) };
    }

    const targets = candidates.map(({ model, outputTokens }) => ({
      provider: model.provider,
      call: { upstreamModel: model.upstreamModel, request, maxTokens: outputTokens, stream: request.stream === true },
    }));
    const calling = performance.now();
    let dispatched;
    try {
      dispatched = await this.dispatcher.dispatch(targets, caller.signal);
    } catch (err) {
      caller.timing.upstream('none', performance.now() - calling);
      await delivery.abandon();
      throw err;
    }
    const { index, reply } = dispatched;
    const candidate = candidates[index];
    const cacheable = key !== null && index === 0 ? key : null;
    if (reply.kind === 'json') {
      caller.timing.upstream(candidate.model.provider, performance.now() - calling);
      const completion = { ...reply.completion, model: candidate.model.id };
      await this.deliver(caller, plan, candidate, completion, delivery, cacheable);
      return { model: candidate.model, fallback: index > 0, cache: 'miss', body: { kind: 'json', completion } };
    }
    return {
      model: candidate.model,
      fallback: index > 0,
      cache: 'miss',
      body: { kind: 'stream', chunks: this.relay(reply.chunks, plan, caller, candidate, delivery, cacheable, calling) },
    };
  }

  /** Passes a stream through under our model id; once it has ended whole, completes the delivery before the client sees [DONE]. */
  private async *relay(
    chunks: AsyncIterable<ChatCompletionChunk>,
    plan: ChatPlan,
    caller: ChatCaller,
    candidate: PricedCandidate,
    delivery: Delivery,
    cacheable: string | null,
    /** When the upstream was called; null for a cached answer replayed as a stream. */
    calling: number | null,
  ): AsyncGenerator<ChatCompletionChunk> {
    const assembler = new CompletionAssembler();
    const showUsage = plan.request.stream_options?.include_usage === true;
    let finished = false;
    let sent = false;
    try {
      for await (const upstream of chunks) {
        const chunk = { ...upstream, model: candidate.model.id };
        assembler.add(chunk);
        if (chunk.choices.length === 0 && !showUsage) continue;
        if (!showUsage) delete chunk.usage;
        yield chunk;
        sent = true;
      }
      if (calling !== null) caller.timing.upstream(candidate.model.provider, performance.now() - calling);
      const completion = assembler.result();
      if (!completion) throw new GatewayError('provider_error', 'the upstream stream ended before the answer was complete');
      finished = true;
      await this.deliver(caller, plan, candidate, completion, delivery, cacheable);
    } catch (err) {
      throw err instanceof UpstreamError ? midStreamError(err) : err;
    } finally {
      if (!finished) {
        // A client that walked away after the answer began has had what it paid for; leaving before
        // [DONE] must not make a payment free and reusable. An upstream that failed, a request that
        // timed out or a stream that never started delivered nothing: not charged.
        if (sent && clientLeft(caller.signal)) await this.settle(caller, plan, candidate, delivery, assembler.usage());
        else await delivery.abandon();
      }
    }
  }

  /** The answer is whole: complete the delivery (settle a payment), then log it and cache it. */
  private async deliver(caller: ChatCaller, plan: ChatPlan, candidate: PricedCandidate, completion: ChatCompletion, delivery: Delivery, cacheable: string | null): Promise<void> {
    // The client left while the answer was being produced: it never received it, so it is not paid for.
    if (caller.signal.aborted) {
      await delivery.abandon();
      throw caller.signal.reason;
    }
    await this.settle(caller, plan, candidate, delivery, completion.usage);
    if (cacheable) this.background.run('cache write', () => this.cache.set(cacheable, completion, this.cacheTtlSecs));
  }

  /** Completes the delivery (settles a payment) and writes the spend-log row with what it charged. */
  private async settle(caller: ChatCaller, plan: ChatPlan, candidate: PricedCandidate, delivery: Delivery, usage: ChatCompletion['usage']): Promise<void> {
    const charged = await delivery.complete(candidate.model.id);
    this.background.run('spend log', () =>
      this.spendLog.record({
        requestId: caller.requestId,
        payerWallet: delivery.payerWallet,
        model: candidate.model.id,
        provider: candidate.model.provider,
        tokensIn: usage?.prompt_tokens ?? plan.inputTokens,
        tokensOut: usage?.completion_tokens ?? 0,
        amountChargedAtomic: charged,
        createdAt: new Date(),
      }),
    );
  }

  /** A cached answer in the form asked; as a stream it is paid for before its [DONE], like any other. */
  private cachedBody(completion: ChatCompletion, plan: ChatPlan, caller: ChatCaller, primary: PricedCandidate, delivery: Delivery): ServedChat['body'] {
    if (plan.request.stream !== true) return { kind: 'json', completion };
    const chunks = fromArray(completionChunks(completion, true));
    return { kind: 'stream', chunks: this.relay(chunks, plan, caller, primary, delivery, null, null) };
  }
}

/** The request was cancelled because its client went away (not because it timed out). */
function clientLeft(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { name?: unknown } | undefined)?.name === 'ClientDisconnected';
}

function midStreamError(err: UpstreamError): GatewayError {
  return err.kind === 'bad_response'
    ? new GatewayError('provider_error', 'the upstream provider sent a malformed stream')
    : new GatewayError('upstream_unavailable', 'the upstream provider stopped mid-stream');
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
