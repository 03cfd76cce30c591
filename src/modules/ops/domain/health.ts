/** Health vocabulary and its rules (spec 3.2, 4.4). */
export type DependencyState = 'connected' | 'not_configured' | 'error';
export type HealthStatus = 'ok' | 'degraded' | 'error';
/** Whether sponsored fees can still be paid this window: `exhausted` once the global bound is reached. */
export type SponsorshipState = 'ok' | 'exhausted' | 'not_configured';

export interface DependencyChecks {
  database: DependencyState;
  redis: DependencyState;
  solana_rpc: DependencyState;
  providers: Readonly<Record<string, DependencyState>>;
  fee_sponsorship: SponsorshipState;
}

/**
 * `error` when configured storage is unusable (receipts and spend records would be lost);
 * `degraded` when any other configured dependency is (the gateway still serves, with fallbacks), or
 * when the sponsored fees of the window are spent (official clients cannot pay until it turns);
 * `ok` otherwise. Dependencies that are not configured never count against health.
 */
export function overallStatus(checks: DependencyChecks): HealthStatus {
  if (checks.database === 'error') return 'error';
  const others = [checks.redis, checks.solana_rpc, ...Object.values(checks.providers)];
  return others.includes('error') || checks.fee_sponsorship === 'exhausted' ? 'degraded' : 'ok';
}

/**
 * What keeps an instance out of rotation: its configured stateful dependencies (database, Redis).
 * The chain RPC and upstream providers are shared by every instance, so taking this one out of
 * rotation for them would not help; they show in health instead.
 */
export function unusableForReadiness(checks: DependencyChecks): string[] {
  return (['database', 'redis'] as const).filter((name) => checks[name] === 'error');
}
