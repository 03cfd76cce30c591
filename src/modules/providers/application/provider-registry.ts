import { CircuitBreaker, type BreakerPolicy } from '../domain/circuit-breaker';
import type { ProviderName } from '../domain/provider-name';
import type { LlmProvider } from '../ports/llm-provider';

export interface RegisteredProvider {
  provider: LlmProvider;
  breaker: CircuitBreaker;
}

/** The providers that have a key (one without a key is never called), each with its circuit breaker. */
export class ProviderRegistry {
  private readonly entries: ReadonlyMap<ProviderName, RegisteredProvider>;

  constructor(providers: readonly LlmProvider[], policy: BreakerPolicy, now?: () => number) {
    this.entries = new Map(providers.map((provider) => [provider.name, { provider, breaker: new CircuitBreaker(policy, now) }]));
  }

  get(name: ProviderName): RegisteredProvider | undefined {
    return this.entries.get(name);
  }
}
