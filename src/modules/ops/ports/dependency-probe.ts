/** A remote dependency the gateway can check; `ping` rejects when it is unusable. */
export abstract class DependencyProbe {
  abstract ping(): Promise<void>;
}

/** The probes of the configured remote dependencies; null where one is not configured. */
export abstract class HealthProbes {
  abstract readonly database: DependencyProbe | null;
  abstract readonly redis: DependencyProbe | null;
  abstract readonly solanaRpc: DependencyProbe | null;
}
