import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import OpenAI, { APIError } from 'openai';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { LogCapture } from '../../support/log-capture';
import { closedPort } from '../../support/network';
import { TestRoutesModule } from '../../support/test-routes.module';
import { startUpstreams, writeTestCatalog, type Upstreams } from '../../support/upstreams';

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

/** pino's number for warn. */
const WARN = 40;

describe('upstream failures in the log', () => {
  let upstreams: Upstreams;
  let gateway: RunningGateway;
  let client: OpenAI;
  const logs = new LogCapture();

  beforeAll(async () => {
    upstreams = await startUpstreams();
    gateway = await startTestGateway(
      { ...upstreams.env, GW_CATALOG_FILE: writeTestCatalog(), GW_FREE_TIER_RATE_LIMIT: '1000', GW_FREE_TIER_GLOBAL_RPM: '1000', GW_CACHE_TTL_SECS: '0', GW_LOG_LEVEL: 'warn' },
      { logDestination: logs },
    );
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'not-needed', maxRetries: 0 });
  });
  afterEach(() => upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await upstreams.close();
  });

  const failures = (provider: string): Array<Record<string, unknown>> => logs.lines.filter((line) => line.provider === provider && String(line.msg).startsWith('upstream attempt failed'));

  it('logs a revoked key at warn with the provider, model, status, request id and the body with the key redacted; the client sees none of it', async () => {
    const key = upstreams.env.OPENAI_API_KEY;
    upstreams.openai.script({ kind: 'status', status: 401, message: `Incorrect API key provided: ${key}. You can find your API key in your dashboard.` });

    const error: unknown = await client.chat.completions.create({ model: 'openai/gpt-test-free', messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(APIError);
    const { status, error: envelope } = error as APIError;
    expect([status, envelope]).toEqual([
      503,
      { type: 'upstream_unavailable', message: 'no upstream provider is available for this request right now; retry shortly', code: 'upstream.unavailable', param: null },
    ]);
    const [line] = failures('openai');
    expect(line).toMatchObject({
      level: WARN,
      provider: 'openai',
      model: 'gpt-test',
      status: 401,
      kind: 'unavailable',
      upstream_request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/),
      msg: 'upstream attempt failed before the first chunk: openai answered HTTP 401',
    });
    expect(line.body_excerpt).toContain('Incorrect API key provided: [redacted].');
    expect(line.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs.text).not.toContain(key);
    expect(JSON.stringify(envelope)).not.toMatch(/Incorrect|req_|401/);
  });

  it("logs each attempt, the retry after a 500 included, with Retry-After and Anthropic's request-id", async () => {
    upstreams.anthropic.script({ kind: 'status', status: 500 }, { kind: 'status', status: 429, retryAfter: '7' });

    await expect(client.chat.completions.create({ model: 'anthropic/claude-test-free', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 503 });

    // One retry after a 500 (docs/decisions.md, "Failure policy"): two attempts, two lines.
    expect(failures('anthropic').map(({ status, retry_after, upstream_request_id }) => ({ status, retry_after, id: typeof upstream_request_id }))).toEqual([
      { status: 500, retry_after: undefined, id: 'string' },
      { status: 429, retry_after: '7', id: 'string' },
    ]);
  });
});
