import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import { PROVIDER_NAMES, type ProviderName } from '../domain/provider-name';
import type { UpstreamError } from '../domain/upstream-error';
import { ProviderRegistry } from './provider-registry';

/** Failed upstream attempts by provider and failure kind, and each configured provider's circuit, read at scrape. */
@Injectable()
export class ProviderMetrics {
  private readonly errors: Counter<'provider' | 'kind'>;

  constructor(registry: Registry, providers: ProviderRegistry) {
    this.errors = new Counter({
      name: 'gw_upstream_errors_total',
      help: 'Failed upstream attempts (before the first chunk or mid-stream), by provider and kind: unavailable (retryable) or bad_response',
      labelNames: ['provider', 'kind'],
      registers: [registry],
    });
    // Each worker has its own breakers: across workers the gauge says whether any has one open.
    new Gauge({
      name: 'gw_upstream_breaker_open',
      help: "1 while a configured provider's circuit breaker is open: it is skipped until a trial call succeeds",
      labelNames: ['provider'],
      registers: [registry],
      aggregator: 'max',
      collect() {
        // Providers without a key have no breaker and are never called: no series rather than a misleading 0.
        for (const name of PROVIDER_NAMES) {
          const entry = providers.get(name);
          if (entry) this.set({ provider: name }, entry.breaker.state === 'open' ? 1 : 0);
        }
      },
    });
  }

  upstreamFailed(provider: ProviderName, kind: UpstreamError['kind']): void {
    this.errors.inc({ provider, kind });
  }
}
