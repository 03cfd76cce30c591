import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import { AppLogger } from '../../../logging/app-logger';
import { ProviderRegistry } from '../../providers/application/provider-registry';
import { FeeSponsorship } from '../../payments/application/fee-sponsorship';
import type { DependencyChecks, DependencyState } from '../domain/health';
import { DependencyProbe, HealthProbes } from '../ports/dependency-probe';

export const PROBE_TIMEOUT_MS = 2_000;
const CACHE_MS = 5_000;

type RemoteChecks = Omit<DependencyChecks, 'providers' | 'fee_sponsorship'>;
type RemoteName = keyof RemoteChecks;

/**
 * Dependency states for /health. Remote probes run as terminus indicators, each bounded to 2 s;
 * results are cached for 5 s and shared by concurrent callers, so an offline machine (or a health
 * poller) never waits on the network more than once per window.
 */
@Injectable()
export class HealthService {
  private cache: { expires: number; checks: Promise<RemoteChecks> } | null = null;
  private readonly lastStates = new Map<RemoteName, DependencyState>();

  constructor(
    private readonly probes: HealthProbes,
    private readonly terminus: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly providers: ProviderRegistry,
    private readonly sponsorship: FeeSponsorship,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(HealthService.name);
  }

  async checks(): Promise<DependencyChecks> {
    const sponsorship = this.sponsorship.state();
    const fee_sponsorship = !sponsorship.configured ? 'not_configured' : sponsorship.exhausted ? 'exhausted' : 'ok';
    return { ...(await this.remoteChecks()), providers: this.providers.states(), fee_sponsorship };
  }

  private remoteChecks(): Promise<RemoteChecks> {
    const now = Date.now();
    if (!this.cache || this.cache.expires <= now) {
      this.cache = { expires: now + CACHE_MS, checks: this.probeAll() };
    }
    return this.cache.checks;
  }

  private async probeAll(): Promise<RemoteChecks> {
    const probes: Record<RemoteName, DependencyProbe | null> = {
      database: this.probes.database,
      redis: this.probes.redis,
      solana_rpc: this.probes.solanaRpc,
    };
    const names = Object.keys(probes) as RemoteName[];
    const configured = names.filter((name) => probes[name] !== null);
    const result = await this.terminus
      .check(configured.map((name) => () => this.indicate(name, probes[name] as DependencyProbe)))
      .catch((err: unknown) => {
        // terminus reports a down indicator by throwing its own 503; we only want the details.
        if (err instanceof ServiceUnavailableException) return err.getResponse() as HealthCheckResult;
        throw err;
      });
    const checks = {} as RemoteChecks;
    for (const name of names) {
      checks[name] = probes[name] === null ? 'not_configured' : result.details[name]?.status === 'up' ? 'connected' : 'error';
      this.noteChange(name, checks[name], result.details[name]?.message);
    }
    return checks;
  }

  private async indicate(name: RemoteName, probe: DependencyProbe): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(name);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
    });
    try {
      await Promise.race([probe.ping(), timeout]);
      return session.up();
    } catch (err) {
      return session.down({ message: err instanceof Error ? err.message : String(err) });
    } finally {
      clearTimeout(timer);
    }
  }

  private noteChange(name: RemoteName, state: DependencyState, reason: unknown): void {
    const previous = this.lastStates.get(name);
    this.lastStates.set(name, state);
    if (state === 'error' && previous !== 'error') this.logger.warn({ dependency: name, reason }, 'dependency unavailable');
    if (state === 'connected' && previous === 'error') this.logger.info({ dependency: name }, 'dependency available again');
  }
}
