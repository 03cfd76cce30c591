import { request as httpRequest } from 'node:http';
import { GatewayError } from '../../../src/errors/gateway-error';
import type { RunningGateway } from '../../../src/gateway';
import { ClientDisconnected } from '../../../src/http/request-context';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { heldCount, observed, releaseHeld, TestRoutesModule } from '../../support/test-routes.module';

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('global concurrency cap', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ GW_MAX_CONCURRENT_REQUESTS: '2', GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { imports: [TestRoutesModule] });
  });
  afterAll(async () => {
    releaseHeld();
    await gateway.close();
  });

  it('answers 503 at once past the cap, exempts health and metrics, and admits again once a slot frees', async () => {
    const first = fetch(`${gateway.url}/test/hold`);
    const second = fetch(`${gateway.url}/test/hold`);
    // Both held requests must be in flight before the third arrives.
    await waitFor(() => heldCount() === 2);

    const started = Date.now();
    const refused = await fetch(`${gateway.url}/test/identity`);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-gw-request-id')).toBeTruthy();
    expect(await refused.json()).toEqual({ error: { type: 'service_unavailable', message: 'too many concurrent requests; retry shortly', code: 'server.overloaded', param: null } });

    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    const metrics = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/gw_http_rejections_total\{reason="concurrency_limit"\} 1/);

    releaseHeld();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect((await fetch(`${gateway.url}/test/identity`)).status).toBe(200);
  });
});

describe('request timeout', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ GW_REQUEST_TIMEOUT_SECS: '1' }, { imports: [TestRoutesModule] });
  });
  afterAll(() => gateway.close());
  beforeEach(() => {
    observed.abortReasons.length = 0;
  });

  it('answers 408 in the envelope and cancels the work behind the request', async () => {
    const started = Date.now();
    const res = await fetch(`${gateway.url}/test/slow?ms=10000`);
    const elapsed = Date.now() - started;
    expect(res.status).toBe(408);
    expect(res.headers.get('x-gw-request-id')).toBeTruthy();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual({ error: { type: 'request_timeout', message: 'request exceeded the 1 s timeout', code: 'request.timeout', param: null } });
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3000);
    expect(observed.abortReasons).toHaveLength(1);
    expect(observed.abortReasons[0]).toBeInstanceOf(GatewayError);
    expect((observed.abortReasons[0] as GatewayError).type).toBe('request_timeout');
  });

  it('leaves requests that finish in time alone', async () => {
    const res = await fetch(`${gateway.url}/test/slow?ms=100`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    expect(observed.abortReasons).toHaveLength(0);
  });

  it('never hands a handler a body that finished arriving after the timeout', async () => {
    const before = observed.echoed;
    const req = httpRequest(`${gateway.url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
    req.on('error', () => undefined);
    const response = new Promise<number>((resolve) => req.on('response', (res) => resolve(res.statusCode ?? 0)));
    req.write('{"slow":');
    expect(await response).toBe(408);
    req.end('"upload"}');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(observed.echoed).toBe(before);
  });

  it('ends a stream that already started with an error event, never a clean end', async () => {
    const res = await fetch(`${gateway.url}/test/stream`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    const events = text.trim().split('\n\n');
    expect(events[0]).toBe('data: {"chunk":1}');
    expect(JSON.parse(events[events.length - 1].replace(/^data: /, ''))).toEqual({
      error: { type: 'request_timeout', message: 'request exceeded the 1 s timeout', code: 'request.timeout', param: null },
    });
    expect(text).not.toContain('[DONE]');
    expect((observed.abortReasons[0] as GatewayError).type).toBe('request_timeout');
  });
});

describe('client disconnect', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({}, { imports: [TestRoutesModule] });
  });
  afterAll(() => gateway.close());

  it('aborts the work behind a request whose client went away', async () => {
    observed.abortReasons.length = 0;
    const req = httpRequest(`${gateway.url}/test/stream`);
    req.on('error', () => undefined);
    req.on('response', (res) => res.once('data', () => req.destroy()));
    req.end();
    await waitFor(() => observed.abortReasons.length === 1);
    expect(observed.abortReasons[0]).toBeInstanceOf(ClientDisconnected);
  });
});
