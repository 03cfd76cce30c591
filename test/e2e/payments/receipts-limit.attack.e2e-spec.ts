import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway } from '../../support/gateway-harness';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';

/** What held up: the receipts limit stays exact under concurrency and keeps limiting (no 500) while Redis is dead. */
const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

async function statuses(gateway: RunningGateway, n: number, path = '/v1/receipts/x'): Promise<number[]> {
  return Promise.all(Array.from({ length: n }, () => fetch(`${gateway.url}${path}`).then(async (res) => (await res.arrayBuffer(), res.status))));
}

describeWithRedis('the receipts limit with Redis, then without', () => {
  let redis: PrivateRedis;
  let gateway: RunningGateway;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    gateway = await startTestGateway({ REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await gateway.close();
    await redis.close();
  });

  it('admits exactly 20 of 40 concurrent lookups on Redis, across path and case variants', async () => {
    const all = [...(await statuses(gateway, 20)), ...(await statuses(gateway, 10, '/V1/Receipts/x/')), ...(await statuses(gateway, 10, '/v1/receipts/x%2F'))];
    expect(all.filter((s) => s !== 429)).toHaveLength(20);
    expect(all).not.toContain(500);
  });

  it('keeps limiting from memory once Redis is killed, and never answers 500', async () => {
    await redis.kill();
    const all = await statuses(gateway, 30);
    expect(all).not.toContain(500);
    expect(all.filter((s) => s !== 429)).toHaveLength(20);
    const refused = await fetch(`${gateway.url}/v1/receipts/x`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: { type: 'rate_limit_exceeded', message: 'Too many requests. Please slow down.', code: 'rate_limit.exceeded', param: null } });
    expect(refused.headers.get('retry-after')).toBe(refused.headers.get('x-ratelimit-reset'));
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });
});
