import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { BackgroundTasks } from '../../../core/background-tasks';
import type { ChatCompletion } from '../../providers/domain/chat-completion';
import type { ChatRequest } from '../../providers/domain/chat-request';
import { cacheKey } from '../domain/cache-key';
import type { PricedCandidate } from '../domain/chat-plan';
import { involvesMarketData } from '../domain/market-data-tools';
import { ResponseCache } from '../ports/response-cache';
import { ChatMetrics } from './chat-metrics';

/** The response cache as answers use it (spec 1.7): where an answer is kept, looking it up, keeping it. */
@Injectable()
export class AnswerCache {
  private readonly ttlSecs: number;

  constructor(
    private readonly cache: ResponseCache,
    private readonly metrics: ChatMetrics,
    private readonly background: BackgroundTasks,
    config: GatewayConfig,
  ) {
    this.ttlSecs = config.limits.cacheTtlSecs;
  }

  /** Where the answer is kept, or null when it is not: caching off, or market-data tools involved (spec 1.7). `surface`: the path the request came in on. */
  keyOf(surface: string, request: ChatRequest, primary: PricedCandidate): string | null {
    if (this.ttlSecs <= 0 || involvesMarketData(request)) return null;
    return cacheKey(surface, primary.model.id, request, primary.outputTokens);
  }

  /** The answer kept under `key`, counted as a hit or a miss; a request that may not be cached (null key) looks nothing up. */
  async lookup(key: string | null): Promise<ChatCompletion | null> {
    if (!key) return null;
    const completion = await this.cache.get(key);
    this.metrics.cacheLookup(completion ? 'hit' : 'miss');
    return completion;
  }

  /** Keeps a whole answer, in the background: the client does not wait for the write. */
  keep(key: string, completion: ChatCompletion): void {
    this.background.run('cache write', () => this.cache.set(key, completion, this.ttlSecs));
  }
}
