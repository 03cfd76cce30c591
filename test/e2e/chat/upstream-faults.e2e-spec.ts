import type { RunningGateway } from '../../../src/gateway';
import type { Behaviour } from '../../fakes/behaviour';
import { startTestGateway } from '../../support/gateway-harness';
import { closedPort } from '../../support/network';
import { sseData, startUpstreams, writeTestCatalog, type Upstreams } from '../../support/upstreams';

const OPEN_LIMITS = { GW_FREE_TIER_RATE_LIMIT: '1000', GW_FREE_TIER_GLOBAL_RPM: '1000', GW_CACHE_TTL_SECS: '0' };

function chat(gateway: RunningGateway, body: Record<string, unknown>, init: RequestInit = {}): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }], ...body }),
    ...init,
  });
}

describe('what the client sees when upstreams fail', () => {
  let upstreams: Upstreams;
  let gateway: RunningGateway;
  const model = 'anthropic/claude-test-free';

  beforeAll(async () => {
    upstreams = await startUpstreams();
    gateway = await startTestGateway({
      ...upstreams.env,
      ...OPEN_LIMITS,
      GW_CATALOG_FILE: writeTestCatalog(),
      // These scenarios fail on purpose: keep the breaker out of them (it has its own suite below).
      GW_BREAKER_MIN_REQUESTS: '100000',
      GW_UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '500',
      GW_UPSTREAM_IDLE_TIMEOUT_MS: '500',
    });
  });
  afterEach(() => upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await upstreams.close();
  });

  it('500 once, then fine: 200 from the same candidate, no error', async () => {
    upstreams.anthropic.script({ kind: 'status', status: 500 }, { kind: 'reply' });
    const res = await chat(gateway, { model });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gw-fallback')).toBeNull();
    expect(upstreams.anthropic.requests).toHaveLength(2);
  });

  const unavailable: Array<[string, Behaviour]> = [
    ['503 always', { kind: 'status', status: 503 }],
    ['500 always', { kind: 'status', status: 500 }],
    ['429 with Retry-After', { kind: 'status', status: 429, retryAfter: '7' }],
    ['429 without Retry-After', { kind: 'status', status: 429 }],
    ['connection reset', { kind: 'reset' }],
    ['no first byte within the timeout', { kind: 'hang' }],
  ];
  it.each(unavailable)('%s: 503 upstream_unavailable, sanitised', async (_name, behaviour) => {
    upstreams.anthropic.setDefault(behaviour);
    const res = await chat(gateway, { model });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { type: string; message: string; code: string } };
    expect(body.error.type).toBe('upstream_unavailable');
    expect(body.error.code).toBe('upstream.unavailable');
    expect(body.error.message).not.toMatch(/127\.0\.0\.1|sk-test|anthropic|http/i);
  });

  it('connection refused: 503 upstream_unavailable', async () => {
    const refused = await startTestGateway({ ...upstreams.env, ...OPEN_LIMITS, GW_CATALOG_FILE: writeTestCatalog(), GW_ANTHROPIC_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1` });
    try {
      const res = await chat(refused, { model });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe('upstream_unavailable');
    } finally {
      await refused.close();
    }
  });

  it.each<[string, Behaviour]>([
    ['a malformed JSON body', { kind: 'malformed-json' }],
    ['a non-retryable 4xx', { kind: 'status', status: 400, message: 'secret upstream detail' }],
  ])('%s: 502 provider_error without the upstream detail', async (_name, behaviour) => {
    upstreams.anthropic.setDefault(behaviour);
    const res = await chat(gateway, { model });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { type: string; message: string } };
    expect(body).toEqual({ error: { type: 'provider_error', message: 'the upstream provider returned a response the gateway cannot use', code: 'upstream.unusable_response', param: null } });
  });

  it('first candidate down, second fine: 200 with x-gw-fallback', async () => {
    upstreams.anthropic.setDefault({ kind: 'status', status: 503 });
    const res = await chat(gateway, { model: 'free' }, { headers: { 'content-type': 'application/json', 'x-gw-debug': 'true' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gw-fallback')).toBe('true');
    expect(res.headers.get('x-gw-model')).toBe('nvidia/llama-3.3-70b-instruct');
    expect(((await res.json()) as { model: string }).model).toBe('nvidia/llama-3.3-70b-instruct');
  });

  it('falls back before the first chunk of a stream, but never after bytes were sent', async () => {
    upstreams.anthropic.setDefault({ kind: 'status', status: 503 });
    const res = await chat(gateway, { model: 'free', stream: true });
    const data = await sseData(res);
    expect(res.headers.get('x-gw-fallback')).toBe('true');
    expect(data[data.length - 1]).toBe('[DONE]');
  });

  it.each<[string, Behaviour]>([
    ['stream cut half-way', { kind: 'cut-stream', afterChunks: 3 }],
    ['malformed chunk', { kind: 'malformed-chunk' }],
    ['no end of stream after the chunks', { kind: 'missing-done' }],
  ])('%s: the chunks already sent, then an error event, never a clean [DONE]', async (_name, behaviour) => {
    for (const [family, streamModel] of [
      ['anthropic', model],
      ['nvidia', 'nvidia/gpt-oss-120b'],
      ['google', 'google/gemini-test-free'],
    ] as const) {
      upstreams[family].setDefault(behaviour);
      const res = await chat(gateway, { model: streamModel, stream: true });
      expect(res.status).toBe(200);
      const data = await sseData(res);
      expect(data).not.toContain('[DONE]');
      const last = JSON.parse(data[data.length - 1]) as { error?: { type: string } };
      expect(['upstream_unavailable', 'provider_error']).toContain(last.error?.type);
    }
  });

  it('a stream silent past the idle timeout before its first chunk: 503, since nothing was sent yet', async () => {
    upstreams.anthropic.setDefault({ kind: 'reply', chunkDelayMs: 2_000 });
    const res = await chat(gateway, { model, stream: true });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('upstream_unavailable');
  });

  it('no key configured for any candidate: 500 internal_error', async () => {
    const keyless = await startTestGateway({ ...OPEN_LIMITS, GW_CATALOG_FILE: writeTestCatalog() });
    try {
      const res = await chat(keyless, { model: 'nvidia/gpt-oss-120b' });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({
        error: { type: 'internal_error', message: 'no provider key is configured for the models that can answer this request', code: 'upstream.no_provider_key', param: null },
      });
    } finally {
      await keyless.close();
    }
  });

  it('client disconnects mid-stream: the fake sees its request aborted within 1 s', async () => {
    upstreams.anthropic.setDefault({ kind: 'reply', text: 'a long answer that keeps coming one word at a time', chunkDelayMs: 200 });
    const controller = new AbortController();
    const res = await chat(gateway, { model, stream: true }, { signal: controller.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const abortedAt = Date.now();
    controller.abort();
    const request = await upstreams.anthropic.ended(0);
    expect(request.aborted).toBe(true);
    expect((request.abortedAt as number) - abortedAt).toBeLessThan(1_000);
  });
});

describe('the circuit breaker', () => {
  let upstreams: Upstreams;
  let gateway: RunningGateway;

  beforeAll(async () => {
    upstreams = await startUpstreams();
    gateway = await startTestGateway({ ...upstreams.env, ...OPEN_LIMITS, GW_CATALOG_FILE: writeTestCatalog(), GW_ADMIN_TOKEN: 'breaker-test-admin-token' });
  });
  afterAll(async () => {
    await gateway.close();
    await upstreams.close();
  });

  it('does not open for 4xx answers: a client cannot shut a provider for everyone with bad requests', async () => {
    upstreams.anthropic.setDefault({ kind: 'status', status: 400 });
    for (let i = 0; i < 6; i++) expect((await chat(gateway, { model: 'anthropic/claude-test-free' })).status).toBe(502);
    expect(upstreams.anthropic.requests).toHaveLength(6);
    upstreams.anthropic.reset();
  });

  it('opens after 5 failures out of 5: the provider is skipped and health shows it', async () => {
    upstreams.anthropic.setDefault({ kind: 'status', status: 503 });
    for (let i = 0; i < 5; i++) expect((await chat(gateway, { model: 'anthropic/claude-test-free' })).status).toBe(503);
    const before = upstreams.anthropic.requests.length;
    expect((await chat(gateway, { model: 'anthropic/claude-test-free' })).status).toBe(503);
    expect(upstreams.anthropic.requests.length).toBe(before);
    // A profile whose first candidate is the open provider goes straight to the next.
    const res = await chat(gateway, { model: 'free' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gw-fallback')).toBe('true');
    const health = (await (await fetch(`${gateway.url}/health`, { headers: { authorization: 'Bearer breaker-test-admin-token' } })).json()) as {
      status: string;
      checks: { providers: Record<string, string> };
    };
    expect(health.status).toBe('degraded');
    expect(health.checks.providers.anthropic).toBe('error');
    expect(health.checks.providers.nvidia).toBe('connected');
  });

  it('splits request time into gateway overhead and upstream time in /metrics', async () => {
    const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: 'Bearer breaker-test-admin-token' } })).text();
    expect(metrics).toMatch(/gw_gateway_overhead_seconds_count\{route="\/v1\/chat\/completions"\} [1-9]/);
    expect(metrics).toMatch(/gw_upstream_duration_seconds_count\{provider="nvidia"\} [1-9]/);
  });
});

describe('a started free stream: bounded by the stream cap, not by the request timeout', () => {
  let upstreams: Upstreams;
  let gateway: RunningGateway;
  const model = 'anthropic/claude-test-free';
  const slowAnswer: Behaviour = { kind: 'reply', text: 'one two three four five six seven eight nine ten eleven twelve', chunkDelayMs: 200 };

  beforeAll(async () => {
    upstreams = await startUpstreams();
    gateway = await startTestGateway({ ...upstreams.env, ...OPEN_LIMITS, GW_CATALOG_FILE: writeTestCatalog(), GW_REQUEST_TIMEOUT_SECS: '1', GW_STREAM_MAX_SECS: '3' });
  });
  afterEach(() => upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await upstreams.close();
  });

  it('a stream longer than GW_REQUEST_TIMEOUT_SECS completes with [DONE]', async () => {
    upstreams.anthropic.setDefault({ ...slowAnswer, text: 'one two three' });
    const started = Date.now();
    const data = await sseData(await chat(gateway, { model, stream: true }));
    expect(Date.now() - started).toBeGreaterThan(1_000);
    expect(data[data.length - 1]).toBe('[DONE]');
  });

  it('GW_STREAM_MAX_SECS ends a longer one with an error event and stops the upstream call', async () => {
    upstreams.anthropic.setDefault(slowAnswer);
    const data = await sseData(await chat(gateway, { model, stream: true }));
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data[data.length - 1])).toEqual({ error: { type: 'request_timeout', message: 'the stream exceeded the 3 s limit', code: 'chat.stream_too_long', param: null } });
    await upstreams.anthropic.ended(0);
  });
});
