import type { DependencyState } from '../../ops/domain/health';
import { CircuitBreaker, type BreakerPolicy } from '../domain/circuit-breaker';
import { PROVIDER_NAMES, type ProviderName } from '../domain/provider-name';
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

  /** For /health: a provider is usable with a key and a circuit that is not open. */
  states(): Record<ProviderName, DependencyState> {
    const states = {} as Record<ProviderName, DependencyState>;
    for (const name of PROVIDER_NAMES) {
      const entry = this.entries.get(name);
      states[name] = !entry ? 'not_configured' : entry.breaker.state === 'open' ? 'error' : 'connected';
    }
    return states;
  }
}
