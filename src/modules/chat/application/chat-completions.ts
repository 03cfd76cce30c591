import { Injectable } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { BackgroundTasks } from '../../../lifecycle/background-tasks';
import { SpendLog } from '../../billing/ports/spend-log';
import { PaymentChallenges, type Challenge } from '../../payments/application/payment-challenges';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import { UpstreamError } from '../../providers/domain/upstream-error';
import { UpstreamDispatcher } from '../../providers/application/upstream-dispatcher';
import { RateLimiter } from '../../rate-limits/application/rate-limiter';
import { rateLimitHeaders } from '../../rate-limits/domain/rate-limit-headers';
import type { CatalogModel } from '../../routing/domain/catalog';
import { cacheKey } from '../domain/cache-key';
import { candidatesWithin, quoteOf, type ChatPlan, type PricedCandidate } from '../domain/chat-plan';
import type { ChatRequest } from '../domain/chat-request';
import { messageText } from '../domain/chat-request';
import { CHAT_DISCOVERY } from '../domain/chat-discovery';
import { CompletionAssembler, completionChunks } from '../domain/completion-stream';
import { PromptGuard } from '../domain/prompt-guard';
import { ResponseCache } from '../ports/response-cache';
import { ChatPlanner } from './chat-planner';

export const CHAT_PATH = '/v1/chat/completions';

/** The caller as the HTTP edge (or another adapter) knows it. */
export interface ChatCaller {
  requestId: string;
  /** The TCP peer address; 'unknown' when the socket had none. */
  clientAddress: string;
  signal: AbortSignal;
  /** The raw PAYMENT-SIGNATURE header, if any. */
  paymentHeader: string | undefined;
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
  | { kind: 'served'; plan: ChatPlan; served: ServedChat; headers: Record<string, string> };

/** What a completed answer leaves behind: its usage log row (and, once paid, its settlement). */
interface Delivery {
  payerWallet: string | null;
  amountChargedAtomic: bigint;
}

/**
 * POST /v1/chat/completions (spec 4.1): plan, then the free path (limits, guard, provider) or the
 * paid one (guard, then a 402 quote until a payment comes).
 */
@Injectable()
export class ChatCompletions {
  private readonly cacheTtlSecs: number;
  private readonly guard = new PromptGuard();

  constructor(
    private readonly planner: ChatPlanner,
    private readonly challenges: PaymentChallenges,
    private readonly dispatcher: UpstreamDispatcher,
    private readonly limiter: RateLimiter,
    private readonly cache: ResponseCache,
    private readonly spendLog: SpendLog,
    private readonly background: BackgroundTasks,
    private readonly logger: PinoLogger,
    private readonly config: GatewayConfig,
  ) {
    this.cacheTtlSecs = config.limits.cacheTtlSecs;
    logger.setContext(ChatCompletions.name);
  }

  async handle(request: ChatRequest, caller: ChatCaller): Promise<ChatOutcome> {
    const plan = this.planner.plan(request);
    if (quoteOf(plan).total === 0n) return this.serveFree(plan, caller);
    this.inspect(plan);
    if (caller.paymentHeader === undefined) {
      return { kind: 'quote', plan, challenge: this.challenges.challenge(CHAT_PATH, quoteOf(plan), CHAT_DISCOVERY) };
    }
    throw new GatewayError('invalid_payment', 'Payment verification failed. Check your transaction and retry.');
  }

  /** Spec 1.8 and 8: per-IP limit, then the global cap, then the prompt guard, then the provider. A payment header is ignored. */
  private async serveFree(plan: ChatPlan, caller: ChatCaller): Promise<ChatOutcome> {
    const { limits } = this.config;
    const known = caller.clientAddress !== 'unknown';
    const perClient = await this.limiter.admit([
      known ? { key: `free:ip:${caller.clientAddress}`, limit: limits.freeTierRateLimit } : { key: 'free:ip:unknown', limit: UNKNOWN_FREE_LIMIT },
      { key: 'free:global', limit: limits.freeTierGlobalRpm },
    ]);
    this.inspect(plan);
    const served = await this.serve(plan, 0n, caller, { payerWallet: null, amountChargedAtomic: 0n });
    return { kind: 'served', plan, served, headers: rateLimitHeaders(perClient) };
  }

  private inspect(plan: ChatPlan): void {
    const verdict = this.guard.inspect(plan.request.messages.map(messageText));
    if (!verdict.blocked) return;
    this.logger.info({ category: verdict.category, rule: verdict.rule }, 'request blocked by the prompt guard');
    throw new GatewayError('bad_request', 'Request blocked by content policy');
  }

  /**
   * The answer from the cache or from the first candidate `budget` covers that answers. The
   * returned stream ends only after the delivery is recorded; it throws (as GatewayError) when
   * the upstream fails midway.
   */
  private async serve(plan: ChatPlan, budget: bigint, caller: ChatCaller, delivery: Delivery): Promise<ServedChat> {
    const { request } = plan;
    const candidates = candidatesWithin(plan, budget);
    const primary = candidates[0];
    const key = this.cacheTtlSecs > 0 ? cacheKey(primary.model.id, request, primary.outputTokens) : null;
    const cached = key ? await this.cache.get(key) : null;
    if (cached) {
      this.record(caller, primary, cached, delivery);
      return { model: primary.model, fallback: false, cache: 'hit', body: this.body(cached, request) };
    }

    const targets = candidates.map(({ model, outputTokens }) => ({
      provider: model.provider,
      call: { upstreamModel: model.upstreamModel, request, maxTokens: outputTokens, stream: request.stream === true },
    }));
    const { index, reply } = await this.dispatcher.dispatch(targets, caller.signal);
    const candidate = candidates[index];
    const cacheable = key !== null && index === 0 ? key : null;
    if (reply.kind === 'json') {
      const completion = { ...reply.completion, model: candidate.model.id };
      this.finish(caller, candidate, completion, delivery, cacheable);
      return { model: candidate.model, fallback: index > 0, cache: 'miss', body: { kind: 'json', completion } };
    }
    return {
      model: candidate.model,
      fallback: index > 0,
      cache: 'miss',
      body: { kind: 'stream', chunks: this.relay(reply.chunks, request, caller, candidate, delivery, cacheable) },
    };
  }

  /** Passes a stream through under our model id, keeping usage for the log; records once it has ended. */
  private async *relay(
    chunks: AsyncIterable<ChatCompletionChunk>,
    request: ChatRequest,
    caller: ChatCaller,
    candidate: PricedCandidate,
    delivery: Delivery,
    cacheable: string | null,
  ): AsyncGenerator<ChatCompletionChunk> {
    const assembler = new CompletionAssembler();
    const showUsage = request.stream_options?.include_usage === true;
    try {
      for await (const upstream of chunks) {
        const chunk = { ...upstream, model: candidate.model.id };
        assembler.add(chunk);
        if (chunk.choices.length === 0 && !showUsage) continue;
        if (!showUsage) delete chunk.usage;
        yield chunk;
      }
    } catch (err) {
      throw err instanceof UpstreamError ? midStreamError(err) : err;
    }
    const completion = assembler.result();
    if (!completion) throw new GatewayError('provider_error', 'the upstream stream ended before the answer was complete');
    this.finish(caller, candidate, completion, delivery, cacheable);
  }

  private finish(caller: ChatCaller, candidate: PricedCandidate, completion: ChatCompletion, delivery: Delivery, cacheable: string | null): void {
    this.record(caller, candidate, completion, delivery);
    if (cacheable) this.background.run('cache write', () => this.cache.set(cacheable, completion, this.cacheTtlSecs));
  }

  private record(caller: ChatCaller, candidate: PricedCandidate, completion: ChatCompletion, delivery: Delivery): void {
    this.background.run('spend log', () =>
      this.spendLog.record({
        requestId: caller.requestId,
        payerWallet: delivery.payerWallet,
        model: candidate.model.id,
        provider: candidate.model.provider,
        tokensIn: completion.usage?.prompt_tokens ?? 0,
        tokensOut: completion.usage?.completion_tokens ?? 0,
        amountChargedAtomic: delivery.amountChargedAtomic,
        createdAt: new Date(),
      }),
    );
  }

  private body(completion: ChatCompletion, request: ChatRequest): ServedChat['body'] {
    if (request.stream !== true) return { kind: 'json', completion };
    return { kind: 'stream', chunks: fromArray(completionChunks(completion, request.stream_options?.include_usage === true)) };
  }
}

/** Clients that cannot be identified share one small free bucket (spec 8). */
const UNKNOWN_FREE_LIMIT = 2;

function midStreamError(err: UpstreamError): GatewayError {
  return err.kind === 'bad_response'
    ? new GatewayError('provider_error', 'the upstream provider sent a malformed stream')
    : new GatewayError('upstream_unavailable', 'the upstream provider stopped mid-stream');
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
