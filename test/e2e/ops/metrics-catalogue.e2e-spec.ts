import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { configuredOnly, exposedMetrics, METRIC_NAME, readmeCatalogue } from '../../support/metrics-catalogue';

describe('the metrics catalogue (README.md, "Metrics")', () => {
  let gateway: RunningGateway;
  let exposed: Map<string, string>;

  beforeAll(async () => {
    gateway = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    const res = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    exposed = exposedMetrics(await res.text());
  });
  afterAll(() => gateway.close());

  it('exports only gw_ metrics, each named gw_<subsystem>_<what>_<unit>', () => {
    expect(exposed.size).toBeGreaterThan(0);
    expect([...exposed.keys()].filter((name) => !METRIC_NAME.test(name))).toEqual([]);
  });

  it('lists every exported metric in the README, with its type, and nothing the gateway does not export', () => {
    const catalogue = readmeCatalogue();
    expect([...catalogue.keys()].filter((name) => !METRIC_NAME.test(name))).toEqual([]);
    expect([...exposed.keys()].filter((name) => !catalogue.has(name)).sort()).toEqual([]);
    // Escrow's and channels' gauges are registered only when they are configured, which on this gateway they are not.
    const missing = [...catalogue.values()].filter((entry) => !exposed.has(entry.name));
    expect(missing.filter((entry) => !configuredOnly(entry)).map((entry) => entry.name)).toEqual([]);
    expect(missing.map((entry) => entry.name).sort()).toEqual([
      'gw_channel_close_jobs',
      'gw_channel_custody_balance_atomic',
      'gw_escrow_claim_breaker_open',
      'gw_escrow_claim_fees_window_lamports',
      'gw_escrow_claims',
      'gw_escrow_offer_suspended',
    ]);
    expect([...exposed].filter(([name, type]) => catalogue.get(name)?.type !== type)).toEqual([]);
  });
});
