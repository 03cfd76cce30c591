/** How long a probe is given to answer; a probe that can bound its own call uses the same limit. */
export const PROBE_TIMEOUT_MS = 2_000;

/** A remote dependency the gateway can check; `ping` rejects when it is unusable. */
export abstract class DependencyProbe {
  abstract ping(): Promise<void>;
}

/*
 * One token per remote dependency, provided by the adapter module that connects to it; a
 * dependency that is not configured has no such module, so no probe.
 */
export abstract class DatabaseProbe extends DependencyProbe {}
export abstract class RedisProbe extends DependencyProbe {}
export abstract class ChainRpcProbe extends DependencyProbe {}

/** The probes of the configured remote dependencies; null where one is not configured. */
export abstract class HealthProbes {
  abstract readonly database: DependencyProbe | null;
  abstract readonly redis: DependencyProbe | null;
  abstract readonly solanaRpc: DependencyProbe | null;
}
