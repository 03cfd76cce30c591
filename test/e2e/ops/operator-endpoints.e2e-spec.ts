import { RedisConnection } from '../../../src/adapters/redis/redis-connection';
import type { RunningGateway } from '../../../src/gateway';
import { startFakeRpc } from '../../support/fake-rpc-server';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { migratedDataDir } from '../../support/pglite-data-dir';
import { closedPort } from '../../support/network';
import { createTestDatabase } from '../../support/postgres';
import { REDIS_TEST_URL, serviceAvailable } from '../../support/services';
import { TestRoutesModule } from '../../support/test-routes.module';

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

async function health(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/health`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('metrics and admin routes without a configured token', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({}, { imports: [TestRoutesModule] });
  });
  afterAll(() => gateway.close());

  it('hides /metrics: the same 404 as an unknown route, whatever the token', async () => {
    for (const headers of [{}, admin]) {
      const res = await fetch(`${gateway.url}/metrics`, { headers });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { type: 'not_found', message: 'route not found: GET /metrics', code: 'route.not_found', param: null } });
    }
  });

  it('answers 503 on a route that says so while the token is unset', async () => {
    const res = await fetch(`${gateway.url}/test/admin/unavailable`, { headers: admin });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: { type: 'service_unavailable', message: 'admin endpoint not configured', code: 'admin.not_configured', param: null } });
  });
});

describe('operator endpoints with a token, chain RPC up, no storage', () => {
  let gateway: RunningGateway;
  let rpc: Awaited<ReturnType<typeof startFakeRpc>>;

  beforeAll(async () => {
    rpc = await startFakeRpc();
    gateway = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_SOLANA_RPC_URL: rpc.url, OPENAI_API_KEY: 'sk-test-openai' }, { imports: [TestRoutesModule] });
  });
  afterAll(async () => {
    await gateway.close();
    await rpc.close();
  });

  it('/metrics: 401 without or with a wrong token, 200 Prometheus text with the right one', async () => {
    const missing = await fetch(`${gateway.url}/metrics`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(await missing.json()).toEqual({ error: { type: 'unauthorized', message: 'missing or invalid admin token', code: 'admin.unauthorized', param: null } });
    for (const authorization of [`Bearer ${TEST_ADMIN_TOKEN}x`, `Bearer ${TEST_ADMIN_TOKEN.slice(0, -1)}`, `Basic ${TEST_ADMIN_TOKEN}`, TEST_ADMIN_TOKEN]) {
      expect((await fetch(`${gateway.url}/metrics`, { headers: { authorization } })).status).toBe(401);
    }

    await fetch(`${gateway.url}/health/live`);
    await fetch(`${gateway.url}/nowhere/42`);
    const res = await fetch(`${gateway.url}/metrics`, { headers: admin });
    expect(res.status).toBe(200);
    const contentType = res.headers.get('content-type') ?? '';
    expect(contentType).toMatch(/^text\/plain;/);
    expect(contentType).toContain('version=0.0.4');
    const text = await res.text();
    expect(text).toMatch(/^gw_process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^gw_http_requests_total\{method="GET",route="\/health\/live",status="200"\} 1$/m);
    expect(text).toMatch(/^gw_http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
    expect(text).toMatch(/^gw_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/health\/live",status="200"\} \d$/m);
  });

  it('admin routes in the 503 mode accept the token once it is configured', async () => {
    expect((await fetch(`${gateway.url}/test/admin/unavailable`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/test/admin/unavailable`, { headers: admin })).status).toBe(200);
    expect((await fetch(`${gateway.url}/test/admin/hidden`, { headers: admin })).status).toBe(200);
  });

  it('/health shows only the status to everyone, and version and checks to the admin', async () => {
    expect(await health(gateway.url)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await health(gateway.url, { authorization: 'Bearer wrong-token-but-long-enough' })).toEqual({ status: 200, body: { status: 'ok' } });
    const detailed = await health(gateway.url, admin);
    expect(detailed).toEqual({
      status: 200,
      body: {
        status: 'ok',
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        checks: {
          database: 'not_configured',
          redis: 'not_configured',
          solana_rpc: 'connected',
          providers: { openai: 'connected', anthropic: 'not_configured', google: 'not_configured', xai: 'not_configured', deepseek: 'not_configured', nvidia: 'not_configured' },
          fee_sponsorship: expect.stringMatching(/^(ok|not_configured)$/),
        },
      },
    });
  });

  it('caches remote probes: repeated health calls reach the RPC once per window', async () => {
    const before = rpc.requests();
    await Promise.all([1, 2, 3, 4, 5].map(() => health(gateway.url)));
    expect(rpc.requests() - before).toBeLessThanOrEqual(1);
  });

  it('/health/live and /health/ready answer 200', async () => {
    const live = await fetch(`${gateway.url}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${gateway.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok' });
  });
});

describe('a chain RPC that never answers', () => {
  it('bounds the probe to 2 s, then answers from the cache at once', async () => {
    const rpc = await startFakeRpc({ stall: true });
    const gateway = await startTestGateway({ GW_SOLANA_RPC_URL: rpc.url, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    try {
      let started = Date.now();
      const first = await health(gateway.url, admin);
      // Unbounded, the probe would wait for the test's timeout; the margin is for a loaded CI machine.
      expect(Date.now() - started).toBeLessThan(4000);
      expect(first.body).toMatchObject({ status: 'degraded', checks: { solana_rpc: 'error' } });
      started = Date.now();
      await health(gateway.url);
      expect(Date.now() - started).toBeLessThan(1000);
      expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);
    } finally {
      await gateway.close();
      await rpc.close();
    }
  });
});

describe('Redis configured at a closed port', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { imports: [TestRoutesModule] });
  });
  afterAll(() => gateway.close());

  it('starts and serves without hanging', async () => {
    const started = Date.now();
    const res = await fetch(`${gateway.url}/test/identity`);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('fails Redis commands at once instead of queueing them', async () => {
    const { client } = gateway.app.get(RedisConnection);
    const started = Date.now();
    await expect(client.get('anything')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(300);
  });

  it('reports health degraded with redis in error, and not ready', async () => {
    const started = Date.now();
    const detailed = await health(gateway.url, admin);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(detailed.body).toMatchObject({ status: 'degraded', checks: { redis: 'error', database: 'not_configured' } });
    expect((await health(gateway.url)).body).toEqual({ status: 'degraded' });
    const ready = await fetch(`${gateway.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ error: { type: 'service_unavailable', message: 'not ready: redis unavailable', code: 'health.not_ready', param: null } });
  });
});

describe('embedded PGlite storage (the default)', () => {
  it('is connected and ready', async () => {
    const gateway = await startTestGateway({ GW_STORAGE: undefined, GW_DATA_DIR: await migratedDataDir(), GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    try {
      expect((await health(gateway.url, admin)).body).toMatchObject({ checks: { database: 'connected' } });
      expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

const withServices = serviceAvailable('postgres') && serviceAvailable('redis') ? describe : describe.skip;

withServices('PostgreSQL and Redis configured (local services)', () => {
  it('reports both connected and the instance ready', async () => {
    const database = await createTestDatabase();
    const gateway = await startTestGateway({ GW_STORAGE: undefined, DATABASE_URL: database.url, REDIS_URL: REDIS_TEST_URL, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    try {
      expect((await health(gateway.url, admin)).body).toMatchObject({ checks: { database: 'connected', redis: 'connected' } });
      expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);
    } finally {
      await gateway.close();
      await database.drop();
    }
  });
});
