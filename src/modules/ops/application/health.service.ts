import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, type HealthCheckResult, type HealthIndicatorFunction } from '@nestjs/terminus';
import { AppLogger } from '../../../logging/app-logger';
import type { DependencyChecks, DependencyState, SponsorshipState } from '../domain/health';
import { HealthProbes } from '../ports/dependency-probe';
import { DependencyIndicators } from './dependency-indicators';

const CACHE_MS = 5_000;

type RemoteChecks = Pick<DependencyChecks, 'database' | 'redis' | 'solana_rpc'>;
type RemoteName = keyof RemoteChecks;

/**
 * Dependency states for /health, from terminus indicators (dependency-indicators.ts). Remote
 * probes are cached for 5 s and shared by concurrent callers, so an offline machine (or a health
 * poller) never waits on the network more than once per window; the providers' circuits and the
 * sponsorship window are read live.
 */
@Injectable()
export class HealthService {
  private cache: { expires: number; checks: Promise<RemoteChecks> } | null = null;
  private readonly lastStates = new Map<RemoteName, DependencyState>();

  constructor(
    private readonly probes: HealthProbes,
    private readonly terminus: HealthCheckService,
    private readonly indicators: DependencyIndicators,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(HealthService.name);
  }

  async checks(): Promise<DependencyChecks> {
    const local = await this.check([() => this.indicators.providerCircuits(), () => this.indicators.feePayers()]);
    return {
      ...(await this.remoteChecks()),
      providers: local.details.providers.states as DependencyChecks['providers'],
      fee_sponsorship: local.details.fee_sponsorship.state as SponsorshipState,
    };
  }

  private remoteChecks(): Promise<RemoteChecks> {
    const now = Date.now();
    if (!this.cache || this.cache.expires <= now) {
      this.cache = { expires: now + CACHE_MS, checks: this.probeRemote() };
    }
    return this.cache.checks;
  }

  private async probeRemote(): Promise<RemoteChecks> {
    const probes = { database: this.probes.database, redis: this.probes.redis, solana_rpc: this.probes.solanaRpc };
    const names = Object.keys(probes) as RemoteName[];
    const result = await this.check(
      names.flatMap((name) => {
        const probe = probes[name];
        return probe ? [() => this.indicators.remote(name, probe)] : [];
      }),
    );
    const checks = {} as RemoteChecks;
    for (const name of names) {
      const detail = result.details[name];
      checks[name] = detail ? (detail.state as DependencyState) : 'not_configured';
      this.noteChange(name, checks[name], detail?.message);
    }
    return checks;
  }

  /** terminus reports a down indicator by throwing its own 503; only the details matter here. */
  private check(indicators: HealthIndicatorFunction[]): Promise<HealthCheckResult> {
    return this.terminus.check(indicators).catch((err: unknown) => {
      if (err instanceof ServiceUnavailableException) return err.getResponse() as HealthCheckResult;
      throw err;
    });
  }

  private noteChange(name: RemoteName, state: DependencyState, reason: unknown): void {
    const previous = this.lastStates.get(name);
    this.lastStates.set(name, state);
    if (state === 'error' && previous !== 'error') this.logger.warn({ dependency: name, reason }, 'dependency unavailable');
    if (state === 'connected' && previous === 'error') this.logger.info({ dependency: name }, 'dependency available again');
  }
}
