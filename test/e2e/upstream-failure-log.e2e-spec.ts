import OpenAI, { APIError } from 'openai';
import type { RunningGateway } from '../../src/gateway';
import { startTestGateway } from '../support/gateway-harness';
import { LogCapture } from '../support/log-capture';
import { startUpstreams, writeTestCatalog, type Upstreams } from '../support/upstreams';

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
