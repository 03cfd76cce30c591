import type { RunningGateway } from '../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../support/gateway-harness';
import { postJson } from '../support/paid-tools';
import { pgliteStorage } from '../support/storage-env';

/**
 * Spec 8 exempts only /health, /v1/models and /metrics from rate limiting. Every GET /v1/services
 * and every proxy request for an unknown id reads the registry table, so both must meet a limit.
 */
describe('registry reads by anonymous clients are rate limited (spec 8)', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_RATE_LIMIT_MAX: '5' });
  }, 60_000);
  afterAll(async () => {
    await gateway.close();
  });

  it('GET /v1/services: 150 requests from one address in a window meet a 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) statuses.push((await fetch(`${gateway.url}/v1/services`)).status);
    expect(statuses).toContain(429);
  });

  it('POST /v1/services/{unknown}/proxy: 60 requests from one address in a window meet a 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await postJson(gateway, `/v1/services/nobody-${i}/proxy`, {})).status);
    expect(statuses).toContain(429);
  });
});
