import { Injectable } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import type { ChatCompletion, ChatCompletionChunk } from '../domain/chat-completion';
import type { ProviderName } from '../domain/provider-name';
import { UpstreamError } from '../domain/upstream-error';
import type { RequestAdjustments, UpstreamCall } from '../ports/llm-provider';
import { ProviderMetrics } from './provider-metrics';
import { ProviderRegistry, type RegisteredProvider } from './provider-registry';

export interface DispatchTarget {
  provider: ProviderName;
  call: UpstreamCall;
}

/** An upstream that has started answering; for a stream, its first chunk has already arrived. */
export type StartedReply = { kind: 'json'; completion: ChatCompletion } | { kind: 'stream'; chunks: AsyncIterable<ChatCompletionChunk> };

export interface Dispatched {
  /** Which target answered. */
  index: number;
  reply: StartedReply;
  /** What the answering provider dropped or rewrote of the request: worked out only when asked (the debug headers). */
  adjustments: () => RequestAdjustments;
}

/** Statuses worth one more try on the same candidate: a hiccup rather than an outage or a refusal. */
const RETRY_SAME = new Set([500, 502, 504]);

/**
 * The failure policy (docs/decisions.md, "Failure policy"): try the targets in order, falling
 * back only while nothing has reached the client (a stream counts as started at its first chunk);
 * skip providers without a key or with an open circuit; one retry of the same target after a
 * 500, 502 or 504. Every outcome, including a stream's end or failure, feeds the breaker.
 */
@Injectable()
export class UpstreamDispatcher {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly metrics: ProviderMetrics,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(UpstreamDispatcher.name);
  }

  /** `requestId`: the request (or task's call) the attempts serve, named on each failure's log line. */
  async dispatch(targets: readonly DispatchTarget[], signal: AbortSignal, requestId: string): Promise<Dispatched> {
    let configured = false;
    let refusal: UpstreamError | null = null;
    let lastFailure: UpstreamError | undefined;
    for (const [index, target] of targets.entries()) {
      const entry = this.registry.get(target.provider);
      if (!entry) continue;
      configured = true;
      for (let attempt = 0; attempt < 2; attempt++) {
        if (!entry.breaker.tryAcquire()) break;
        try {
          return { index, reply: await this.start(entry, target.call, signal, requestId), adjustments: () => entry.provider.adjustments(target.call) };
        } catch (err) {
          if (signal.aborted || !(err instanceof UpstreamError)) {
            entry.breaker.abandoned();
            throw signal.aborted ? signal.reason : err;
          }
          this.attemptFailed(err, target.call.upstreamModel, requestId, 'before the first chunk');
          lastFailure = err;
          if (err.kind === 'bad_response') {
            // Not shopped around. A malformed answer counts against the provider; a 4xx refusing
            // this request does not, or a client could open the circuit for everyone.
            if (err.status === undefined) entry.breaker.failed();
            else entry.breaker.abandoned();
            refusal = err;
            break;
          }
          entry.breaker.failed();
          if (!RETRY_SAME.has(err.status ?? 0)) break;
        }
      }
      if (refusal) break;
    }
    if (refusal) throw new GatewayError('upstream.unusable_response', 'the upstream provider returned a response the gateway cannot use', {}, { cause: refusal });
    if (!configured) throw new GatewayError('upstream.no_provider_key', 'no provider key is configured for the models that can answer this request');
    throw new GatewayError('upstream.unavailable', 'no upstream provider is available for this request right now; retry shortly', {}, { cause: lastFailure });
  }

  /**
   * One warn line per failed attempt, with what the provider said (docs/decisions.md, "Upstream
   * failures in the log"): the excerpt was redacted when it was read, and the message names no key.
   */
  private attemptFailed(err: UpstreamError, upstreamModel: string, requestId: string, when: string): void {
    this.metrics.upstreamFailed(err.provider, err.kind);
    this.logger.warn(
      {
        request_id: requestId,
        provider: err.provider,
        model: upstreamModel,
        kind: err.kind,
        status: err.status,
        upstream_request_id: err.requestId,
        retry_after: err.retryAfter,
        body_excerpt: err.bodyExcerpt,
      },
      `upstream attempt failed ${when}: ${err.message}`,
    );
  }

  private async start(entry: RegisteredProvider, call: UpstreamCall, signal: AbortSignal, requestId: string): Promise<StartedReply> {
    const reply = await entry.provider.send(call, signal);
    if (reply.kind === 'json') {
      entry.breaker.succeeded();
      return reply;
    }
    const iterator = reply.chunks[Symbol.asyncIterator]();
    const first = await iterator.next();
    // A stream with no chunk at all is not an answer; nothing was sent yet, so it is refused here.
    if (first.done) throw new UpstreamError(entry.provider.name, 'bad_response', `${entry.provider.name} sent an empty stream`);
    return { kind: 'stream', chunks: watched(first, iterator, entry, (err) => this.attemptFailed(err, call.upstreamModel, requestId, 'mid-stream')) };
  }
}

/** The stream with its first chunk put back; its end or failure is reported to the breaker (and a failure to `failed`). */
async function* watched(
  first: IteratorResult<ChatCompletionChunk>,
  rest: AsyncIterator<ChatCompletionChunk>,
  entry: RegisteredProvider,
  failed: (err: UpstreamError) => void,
): AsyncGenerator<ChatCompletionChunk> {
  let finished = false;
  try {
    for (let next = first; !next.done; next = await rest.next()) yield next.value;
    finished = true;
    entry.breaker.succeeded();
  } catch (err) {
    if (err instanceof UpstreamError) {
      entry.breaker.failed();
      failed(err);
    } else entry.breaker.abandoned();
    finished = true;
    throw err;
  } finally {
    if (!finished) {
      // The consumer stopped early (client gone): close the upstream stream too.
      entry.breaker.abandoned();
      await rest.return?.();
    }
  }
}
