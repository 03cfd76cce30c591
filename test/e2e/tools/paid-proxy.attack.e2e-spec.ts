import type { ServerResponse } from 'node:http';
import type { RunningGateway } from '../../../src/gateway';
import { TEST_ADMIN_TOKEN, startTestGateway } from '../../support/gateway-harness';
import { startHttpsService, type HttpsService, type SeenRequest } from '../../support/https-service';
import { specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { postJson, routeQuote } from '../../support/paid-tools';
import { ScriptedResolver } from '../../support/scripted-resolver';
import { pgliteStorage } from '../../support/storage-env';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

const answerOk = (_request: SeenRequest, res: ServerResponse): void => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');

describe('the paid proxy: work done for unpaid callers, and a name that turns private after the check', () => {
  const resolver = new ScriptedResolver();
  let world: PaidWorld;
  let gateway: RunningGateway;
  let service: HttpsService;

  beforeAll(async () => {
    [world, service] = await Promise.all([startPaidWorld(), startHttpsService(answerOk, { dnsNames: ['localhost', 'service.test', 'flip.test'] })]);
    resolver.answer('svc.test', ['127.0.0.1']);
    resolver.answer('flip.test', ['127.0.0.1']);
    gateway = await startPaidGateway(
      world,
      { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_SSRF_ALLOW_CIDRS: '127.0.0.1/32', GW_EXTRA_CA_FILE: service.caFile, GW_RATE_LIMIT_MAX: '3' },
      { hostResolver: resolver },
    );
    for (const id of ['svc', 'flip']) {
      const endpoint = `https://${id}.test:${service.port}/call`;
      const res = await postJson(gateway, '/v1/services/register', { id, name: id, category: 'data', endpoint, x402_enabled: false, price_per_request_usdc: '0.002' }, ADMIN);
      expect(res.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await gateway.close();
    await world.close();
    service.close();
  });

  // First: the rate-limit probe below fills this client's paid bucket for the window.
  it('the gateway does not charge for a call it refused itself (the address it checked before the payment is the one it calls)', async () => {
    const quote = await routeQuote(gateway, '/v1/services/flip/proxy', {});
    // The guard's check before the payment sees the public answer; the next lookup (after the charge) sees a private one.
    resolver.answer('flip.test', ['127.0.0.1'], ['10.0.0.5']);
    const before = world.localnet.usdcBalance(world.recipient.publicKey);
    const hits = service.seen.length;
    const res = await postJson(gateway, '/v1/services/flip/proxy', {}, { 'payment-signature': specPaymentHeader(world, quote) });
    const body = await res.text();
    const charged = world.localnet.usdcBalance(world.recipient.publicKey) - before;
    // The call is made at the address checked before the payment, whatever the name says afterwards.
    expect({ status: res.status, body: JSON.parse(body) as unknown, charged }).toEqual({ status: 200, body: expect.anything(), charged: 2_100n });
    expect(service.seen.length).toBe(hits + 1);
  });
  it('an unpaid caller past its paid rate limit (429) triggers no further DNS resolution of the service', async () => {
    const before = resolver.lookups;
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await postJson(gateway, '/v1/services/svc/proxy', { i })).status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    const quoted = statuses.filter((status) => status === 402).length;
    // One resolution per quote admitted at most; a 429 must cost the gateway no lookup.
    expect(resolver.lookups - before).toBeLessThanOrEqual(quoted);
  });
});

describe('the paid proxy: what an anonymous caller learns from a refused endpoint', () => {
  const resolver = new ScriptedResolver();
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { hostResolver: resolver });
    resolver.answer('api.partner.test', ['93.184.216.34']);
    const res = await postJson(
      gateway,
      '/v1/services/register',
      { id: 'partner', name: 'partner', category: 'data', endpoint: 'https://api.partner.test/call', x402_enabled: false, price_per_request_usdc: '0.002' },
      ADMIN,
    );
    expect(res.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  it('a name that now resolves privately is refused without telling anonymous callers the internal address', async () => {
    resolver.answer('api.partner.test', ['10.20.30.40']);
    const res = await postJson(gateway, '/v1/services/partner/proxy', {});
    expect(res.status).toBe(502);
    expect(await res.text()).not.toContain('10.20.30.40');
  });
});

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
