import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { FeeSponsorship } from '../../payments/application/fee-sponsorship';
import { ProviderRegistry } from '../../providers/application/provider-registry';
import { PROVIDER_NAMES, type ProviderName } from '../../providers/domain/provider-name';
import type { DependencyState, SponsorshipState } from '../domain/health';
import { PROBE_TIMEOUT_MS, type DependencyProbe } from '../ports/dependency-probe';

/**
 * The gateway's terminus health indicators: a remote dependency answering its probe in time, the
 * upstream providers' circuits, and whether fee payers may still be sponsored this window. Each
 * reports `up` or `down` with the state /health shows in its details.
 */
@Injectable()
export class DependencyIndicators {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly providers: ProviderRegistry,
    private readonly sponsorship: FeeSponsorship,
  ) {}

  async remote(name: string, probe: DependencyProbe): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(name);
    try {
      await withinProbeTimeout(probe.ping());
      return session.up({ state: 'connected' satisfies DependencyState });
    } catch (err) {
      return session.down({ state: 'error' satisfies DependencyState, message: err instanceof Error ? err.message : String(err) });
    }
  }

  providerCircuits(): HealthIndicatorResult {
    const states = Object.fromEntries(PROVIDER_NAMES.map((name) => [name, this.providerState(name)]));
    const session = this.indicators.check('providers');
    return Object.values(states).includes('error') ? session.down({ states }) : session.up({ states });
  }

  /** A provider is usable with a key and a circuit that is not open. */
  private providerState(name: ProviderName): DependencyState {
    const entry = this.providers.get(name);
    return !entry ? 'not_configured' : entry.breaker.state === 'open' ? 'error' : 'connected';
  }

  feePayers(): HealthIndicatorResult {
    const { configured, exhausted } = this.sponsorship.state();
    const state: SponsorshipState = !configured ? 'not_configured' : exhausted ? 'exhausted' : 'ok';
    const session = this.indicators.check('fee_sponsorship');
    return state === 'exhausted' ? session.down({ state }) : session.up({ state });
  }
}

/** The probe's promise, or a rejection once PROBE_TIMEOUT_MS has passed; the timer never outlives it. */
async function withinProbeTimeout(probe: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
