import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import type { RunningGateway } from '../../../src/gateway';
import { LogCapture } from '../../support/log-capture';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { closedPort } from '../../support/network';
import { TestRoutesModule } from '../../support/test-routes.module';

describe('structured logs', () => {
  const providerKey = 'sk-provider-secret-1111';
  const feePayerKey = bs58.encode(Keypair.generate().secretKey);
  const redisPassword = 'redis-secret-2222';
  const paymentSignature = Buffer.from(JSON.stringify({ x402_version: 2, payload: { transaction: 'payment-secret-3333' } })).toString('base64');
  const logs = new LogCapture();
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway(
      {
        GW_LOG_LEVEL: 'trace',
        GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        OPENAI_API_KEY: providerKey,
        ANTHROPIC_API_KEY: providerKey,
        GW_FEE_PAYER_KEYS: feePayerKey,
        REDIS_URL: `redis://:${redisPassword}@127.0.0.1:${await closedPort()}`,
      },
      { imports: [TestRoutesModule], logDestination: logs },
    );
    const headers = {
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      'payment-signature': paymentSignature,
      cookie: 'session=cookie-secret-4444',
      'x-request-id': 'client-req_42',
    };
    await fetch(`${gateway.url}/health`, { headers });
    await fetch(`${gateway.url}/metrics`, { headers });
    await fetch(`${gateway.url}/test/boom`, { headers });
    await fetch(`${gateway.url}/test/echo`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"a":1}' });
    await fetch(`${gateway.url}/health/live`, { headers: { 'x-request-id': 'x'.repeat(129) } });
  });
  afterAll(() => gateway.close());

  it('never contain provider keys, fee payer keys, the admin token, payment headers, cookies or credentials in URLs', () => {
    expect(logs.lines.length).toBeGreaterThan(5);
    for (const secret of [providerKey, feePayerKey, TEST_ADMIN_TOKEN, paymentSignature, 'payment-secret-3333', 'cookie-secret-4444', redisPassword]) {
      expect(logs.text).not.toContain(secret);
    }
  });

  it('write one access line per request carrying our request id, and the client id when it is valid', () => {
    const access = logs.lines.filter((line) => line.msg === 'request completed' || line.msg === 'request errored');
    expect(access.map((line) => (line.req as { url: string }).url)).toEqual(['/health', '/metrics', '/test/boom', '/test/echo', '/health/live']);
    for (const line of access) expect(line.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(access.slice(0, 4).map((line) => line.client_request_id)).toEqual(['client-req_42', 'client-req_42', 'client-req_42', 'client-req_42']);
    expect(access[4].client_request_id).toBeUndefined();
    expect(access.map((line) => (line.res as { status: number }).status)).toEqual([200, 200, 500, 200, 200]);
  });

  it('log an unexpected error with its stack under the same request id as its access line', () => {
    const failure = logs.lines.find((line) => line.msg === 'unhandled error');
    expect(failure).toBeDefined();
    expect((failure?.err as { stack: string }).stack).toContain('TestRoutesController');
    const access = logs.lines.find((line) => (line.req as { url?: string } | undefined)?.url === '/test/boom' && line.res);
    expect(failure?.request_id).toBe(access?.request_id);
  });

  it('log the redis outage once, with no credentials', () => {
    const outages = logs.lines.filter((line) => line.msg === 'redis unavailable; falling back until it returns');
    expect(outages).toHaveLength(1);
  });
});
