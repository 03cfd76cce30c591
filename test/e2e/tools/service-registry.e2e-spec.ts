import type { ServerResponse } from 'node:http';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { startHttpsService, type HttpsService, type SeenRequest } from '../../support/https-service';
import { specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { postJson, routeQuote } from '../../support/paid-tools';
import { ScriptedResolver } from '../../support/scripted-resolver';
import { serviceAvailable } from '../../support/services';
import { pgliteStorage, postgresStorage, type TestStorage } from '../../support/storage-env';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const PUBLIC_ADDRESS = '93.184.216.34';

interface ErrorBody {
  error: { type: string; code: string; message: string };
}

function registration(id: string, endpoint: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, name: `Service ${id}`, category: 'Data', endpoint, x402_enabled: false, price_per_request_usdc: '0.002', ...extra };
}

async function register(gateway: RunningGateway, body: unknown, headers: Record<string, string> = ADMIN): Promise<Response> {
  return postJson(gateway, '/v1/services/register', body, headers);
}

async function listServices(gateway: RunningGateway, query = ''): Promise<{ object: string; data: Array<Record<string, unknown>>; total: number }> {
  const res = await fetch(`${gateway.url}/v1/services${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { object: string; data: Array<Record<string, unknown>>; total: number };
}

describe('the service registry and its SSRF defences (spec 2.7, 4.5, 4.10, 8)', () => {
  const resolver = new ScriptedResolver();
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { hostResolver: resolver });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('lists the registry file entries sorted by id, with the spec fields and filters', async () => {
    const all = await listServices(gateway);
    expect(all.object).toBe('list');
    expect(all.data.slice(0, 2).map((entry) => entry.id)).toEqual(['token-price', 'web-search']);
    expect(all.data.find((entry) => entry.id === 'web-search')).toEqual({
      id: 'web-search',
      name: 'Web search',
      category: 'search',
      endpoint: '/v1/search',
      x402_enabled: true,
      internal: true,
      description: expect.any(String),
      pricing: '$0.0105 per request (5% fee included)',
      chains: ['solana'],
      source: 'config',
      price_per_request_usdc: 0.01,
      // No search key here: the tool would answer 503.
      available: false,
    });
    expect((await listServices(gateway, '?category=SEARCH')).data.map((entry) => entry.id)).toEqual(['web-search']);
    expect((await listServices(gateway, '?internal=true')).data.map((entry) => entry.id)).toEqual(['token-price', 'web-search']);
    expect((await listServices(gateway, '?internal=false&category=search')).total).toBe(0);
    const bad = await fetch(`${gateway.url}/v1/services?internal=yes`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.code).toBe('request.invalid_query');
  });

  it('registers an https service (admin token) and answers 201 with the entry; a duplicate id is 409, a configured id too', async () => {
    resolver.answer('api.example-one.test', [PUBLIC_ADDRESS]);
    const res = await register(gateway, registration('example-one', 'https://api.example-one.test/v1/call', { description: 'one' }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({
      id: 'example-one',
      name: 'Service example-one',
      category: 'Data',
      endpoint: 'https://api.example-one.test/v1/call',
      x402_enabled: false,
      internal: false,
      description: 'one',
      pricing: '$0.0021 per request (5% fee included)',
      chains: ['solana'],
      source: 'api',
      price_per_request_usdc: 0.002,
      available: true,
    });
    expect((await listServices(gateway, '?category=data&internal=false')).data.map((entry) => entry.id)).toEqual(['example-one']);
    for (const id of ['example-one', 'web-search']) {
      const again = await register(gateway, registration(id, 'https://api.example-one.test/other'));
      expect(again.status).toBe(409);
      expect(((await again.json()) as ErrorBody).error.code).toBe('services.already_exists');
    }
  });

  it('needs the admin token; refuses bad bodies with 400', async () => {
    expect((await register(gateway, registration('no-token', 'https://api.example-one.test/'), {})).status).toBe(401);
    for (const body of [
      registration('Bad_Id', 'https://api.example-one.test/'),
      registration('x'.repeat(65), 'https://api.example-one.test/'),
      registration('price-bad', 'https://api.example-one.test/', { price_per_request_usdc: '0.0000001' }),
      registration('price-neg', 'https://api.example-one.test/', { price_per_request_usdc: -1 }),
      registration('unpriced', 'https://api.example-one.test/', { price_per_request_usdc: null }),
      registration('zero', 'https://api.example-one.test/', { price_per_request_usdc: 0 }),
      registration('chains', 'https://api.example-one.test/', { chains: ['ethereum'] }),
      { ...registration('internal', 'https://api.example-one.test/'), internal: true },
      { ...registration('source', 'https://api.example-one.test/'), source: 'config' },
    ]) {
      const res = await register(gateway, body);
      expect({ id: body.id, status: res.status }).toEqual({ id: body.id, status: 400 });
    }
  });

  it('refuses an endpoint that is not https, or whose host is in any refused range, IPv4-mapped IPv6 included', async () => {
    const endpoints = [
      'http://api.example-one.test/',
      'ftp://api.example-one.test/',
      'https://user:secret@api.example-one.test/',
      'https://127.0.0.1/',
      'https://127.255.0.9/',
      'https://10.1.2.3/',
      'https://172.16.0.1/',
      'https://172.31.255.254/',
      'https://192.168.1.1/',
      'https://169.254.169.254/latest/meta-data',
      'https://0.0.0.0/',
      'https://100.64.0.1/',
      'https://[::1]/',
      'https://[fe80::1]/',
      'https://[fc00::1]/',
      'https://[fd12:3456::1]/',
      'https://[::]/',
      'https://[ff02::1]/',
      'https://224.0.0.1/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[::ffff:169.254.169.254]/',
      'https://localhost/',
    ];
    for (const [index, endpoint] of endpoints.entries()) {
      const res = await register(gateway, registration(`refused-${index}`, endpoint));
      expect({ endpoint, status: res.status }).toEqual({ endpoint, status: 400 });
      const body = (await res.json()) as ErrorBody;
      expect(body.error.type).toBe('bad_request');
    }
    expect((await listServices(gateway, '?internal=false')).data.map((entry) => entry.id)).not.toContainEqual(expect.stringMatching(/^refused-/));
  });

  it('refuses a name that resolves to loopback, a name with one private address among public ones, and a name that does not resolve', async () => {
    resolver.answer('loopback.example.test', ['127.0.0.1']);
    resolver.answer('mixed.example.test', [PUBLIC_ADDRESS, '10.0.0.7']);
    resolver.answer('mapped.example.test', ['::ffff:192.168.0.1']);
    resolver.answer('nowhere.example.test', []);
    for (const host of ['loopback', 'mixed', 'mapped', 'nowhere']) {
      const res = await register(gateway, registration(`host-${host}`, `https://${host}.example.test/`));
      expect({ host, status: res.status }).toEqual({ host, status: 400 });
      expect(((await res.json()) as ErrorBody).error.code).toBe('services.endpoint_refused');
    }
  });
});

/** The registered service's answers, by path. */
function answerByPath({ path, body }: SeenRequest, res: ServerResponse): void {
  if (path === '/echo') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echoed: JSON.parse(body) as unknown }));
  else if (path === '/wants-payment') res.writeHead(402, { 'content-type': 'application/json' }).end(JSON.stringify({ x402Version: 2, accepts: [] }));
  else if (path === '/redirect') res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data' }).end();
  else if (path === '/redirect-local') res.writeHead(307, { location: '/echo' }).end();
  else res.writeHead(500).end('boom');
}

describe('the paid proxy to a registered service (loopback https fake, GW_SSRF_ALLOW_CIDRS)', () => {
  const resolver = new ScriptedResolver();
  let world: PaidWorld;
  let gateway: RunningGateway;
  let service: HttpsService;
  const hits = (path: string): number => service.seen.filter((request) => request.path === path).length;

  beforeAll(async () => {
    [world, service] = await Promise.all([startPaidWorld(), startHttpsService(answerByPath)]);
    resolver.answer('service.test', ['127.0.0.1']);
    gateway = await startPaidGateway(
      world,
      { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_SSRF_ALLOW_CIDRS: '127.0.0.1/32', GW_EXTRA_CA_FILE: service.caFile },
      { hostResolver: resolver },
    );
    const base = `https://service.test:${service.port}`;
    for (const [id, path, extra] of [
      ['echo', '/echo', {}],
      ['wants-payment', '/wants-payment', {}],
      ['redirects', '/redirect', {}],
      ['redirects-local', '/redirect-local', {}],
      ['broken', '/broken', {}],
      ['own-x402', '/echo', { x402_enabled: true }],
    ] as const) {
      expect((await register(gateway, registration(id, `${base}${path}`, extra))).status).toBe(201);
    }
  });
  afterAll(async () => {
    await gateway.close();
    await world.close();
    service.close();
  });

  const recipient = (): bigint => world.localnet.usdcBalance(world.recipient.publicKey);
  const proxyPath = (id: string): string => `/v1/services/${id}/proxy`;
  const payProxy = async (id: string, body: unknown): Promise<Response> =>
    postJson(gateway, proxyPath(id), body, { 'payment-signature': specPaymentHeader(world, await routeQuote(gateway, proxyPath(id), body)) });

  it('quotes the entry price plus the 5 % fee, takes the payment before the call and relays the answer', async () => {
    const quote = await routeQuote(gateway, proxyPath('echo'), { ask: 1 });
    expect(quote.accepts[0].amount).toBe('2100');
    expect(hits('/echo')).toBe(0);
    const before = recipient();
    const res = await payProxy('echo', { ask: 1 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ echoed: { ask: 1 } });
    expect(recipient() - before).toBe(2_100n);
    expect(res.headers.get('x-gw-receipt')).toMatch(/^\/v1\/receipts\//);
  });

  it('an upstream 402 becomes a 502 (the gateway never pays an upstream), charged with its receipt', async () => {
    const before = recipient();
    const res = await payProxy('wants-payment', {});
    expect(res.status).toBe(502);
    expect(((await res.json()) as ErrorBody).error.code).toBe('services.upstream_payment_required');
    expect(recipient() - before).toBe(2_100n);
    expect(res.headers.get('x-gw-receipt')).toMatch(/^\/v1\/receipts\//);
  });

  it('follows no redirect, to a private address or anywhere else', async () => {
    for (const id of ['redirects', 'redirects-local']) {
      const echoed = hits('/echo');
      const res = await payProxy(id, {});
      expect(res.status).toBe(502);
      expect(((await res.json()) as ErrorBody).error.code).toBe('services.upstream_failed');
      expect(hits('/echo')).toBe(echoed);
    }
  });

  it('an upstream 500 is a charged 502; an x402-enabled entry is paid directly (400); an unknown id is 404; neither quotes', async () => {
    expect((await payProxy('broken', {})).status).toBe(502);
    const direct = await postJson(gateway, proxyPath('own-x402'), {});
    expect(direct.status).toBe(400);
    expect(((await direct.json()) as ErrorBody).error.code).toBe('services.not_proxied');
    const unknown = await postJson(gateway, proxyPath('nobody'), {});
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as ErrorBody).error.code).toBe('services.not_found');
    expect(direct.headers.get('payment-required')).toBeNull();
  });

  it('refuses at proxy time, before any payment, a name whose DNS answer changed to a private address since registration', async () => {
    resolver.answer('rebind.test', [PUBLIC_ADDRESS]);
    expect((await register(gateway, registration('rebinding', `https://rebind.test:${service.port}/echo`))).status).toBe(201);
    resolver.answer('rebind.test', ['10.0.0.5']);
    const before = recipient();
    const res = await postJson(gateway, proxyPath('rebinding'), { ask: 2 });
    expect(res.status).toBe(502);
    expect(((await res.json()) as ErrorBody).error.code).toBe('services.proxy_refused');
    expect(res.headers.get('payment-required')).toBeNull();
    expect(recipient()).toBe(before);
  });
});

function registryRestarts(storage: () => Promise<TestStorage>): void {
  it('keeps runtime entries across a restart', async () => {
    const resolver = new ScriptedResolver();
    resolver.answer('kept.example.test', [PUBLIC_ADDRESS]);
    const opened = await storage();
    const env = { ...opened.env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    try {
      const first = await startTestGateway(env, { hostResolver: resolver });
      try {
        expect((await register(first, registration('kept', 'https://kept.example.test/api'))).status).toBe(201);
      } finally {
        await first.close();
      }
      const second = await startTestGateway(env, { hostResolver: resolver });
      try {
        expect((await listServices(second, '?internal=false')).data).toEqual([
          expect.objectContaining({ id: 'kept', source: 'api', endpoint: 'https://kept.example.test/api', price_per_request_usdc: 0.002 }),
        ]);
        expect((await register(second, registration('kept', 'https://kept.example.test/api'))).status).toBe(409);
      } finally {
        await second.close();
      }
    } finally {
      await opened.drop();
    }
  });
}

describe('the registry on embedded PGlite', () => {
  registryRestarts(pgliteStorage);
});

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('the registry on PostgreSQL (local server)', () => {
  registryRestarts(postgresStorage);
});

describe('the registry without storage', () => {
  it('GW_STORAGE=none: registering is 503 services.storage_not_configured; the file entries are still listed', async () => {
    const gateway = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    try {
      const res = await register(gateway, registration('nostore', 'https://api.example-one.test/'));
      expect(res.status).toBe(503);
      expect(((await res.json()) as ErrorBody).error.code).toBe('services.storage_not_configured');
      expect((await listServices(gateway)).total).toBe(2);
    } finally {
      await gateway.close();
    }
  });
});
