import type { ServerResponse } from 'node:http';
import { Keypair } from '@solana/web3.js';
import type { RunningGateway } from '../../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { startHttpsService, type HttpsService, type SeenRequest } from '../../support/https-service';
import { specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { postJson, PRICE_PATH, routeQuote, SEARCH_PATH, SEARCH_PRICE } from '../../support/paid-tools';
import { startRpcFaultProxy, type RpcFaultProxy } from '../../support/rpc-fault-proxy';
import { ScriptedResolver } from '../../support/scripted-resolver';
import { serviceAvailable } from '../../support/services';
import { pgliteStorage, postgresStorage, type TestStorage } from '../../support/storage-env';

/**
 * Adversarial probes of the paid tools and the proxy: path variants the router accepts (case, a
 * trailing slash) must meet the same limits, and the proxy forwards and relays bytes faithfully
 * and safely.
 */
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** Echoes the size of what it received; `/html` answers a page that sets a cookie. */
function answer({ path, body }: SeenRequest, res: ServerResponse): void {
  if (path === '/html') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'session=evil; Path=/' }).end('<script>alert(document.domain)</script>');
  else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ size: body.length }));
}

describe('paid tools and proxy: edge attacks', () => {
  const resolver = new ScriptedResolver();
  let world: PaidWorld;
  let gateway: RunningGateway;
  let service: HttpsService;

  beforeAll(async () => {
    [world, service] = await Promise.all([startPaidWorld(), startHttpsService(answer)]);
    resolver.answer('service.test', ['127.0.0.1']);
    gateway = await startPaidGateway(
      world,
      { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_SSRF_ALLOW_CIDRS: '127.0.0.1/32', GW_EXTRA_CA_FILE: service.caFile },
      { hostResolver: resolver },
    );
    for (const [id, path] of [
      ['echo', '/echo'],
      ['html', '/html'],
    ]) {
      const res = await postJson(
        gateway,
        '/v1/services/register',
        { id, name: id, category: 'data', endpoint: `https://service.test:${service.port}${path}`, x402_enabled: false, price_per_request_usdc: '0.002' },
        ADMIN,
      );
      expect(res.status).toBe(201);
    }
  }, 120_000);
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await world.close();
    service.close();
  });

  const recipient = (): bigint => world.localnet.usdcBalance(world.recipient.publicKey);
  const pay = async (path: string, body: unknown): Promise<Response> => postJson(gateway, path, body, { 'payment-signature': specPaymentHeader(world, await routeQuote(gateway, path, body)) });

  it('the 64 KiB / 16 KiB tool body limits hold on every path the router sends to the tools (trailing slash, case)', async () => {
    const statuses: Record<string, number> = {};
    for (const path of ['/v1/search', '/v1/search/', '/V1/SEARCH', '/v1/Search/']) {
      statuses[path] = (await postJson(gateway, path, { query: 'q', pad: 'x'.repeat(200 * 1024) })).status;
    }
    for (const path of ['/v1/solana/price', '/v1/solana/price/', '/V1/Solana/Price']) {
      statuses[path] = (await postJson(gateway, path, { mints: [Keypair.generate().publicKey.toBase58()], pad: 'x'.repeat(100 * 1024) })).status;
    }
    expect(statuses).toEqual({
      '/v1/search': 413,
      '/v1/search/': 413,
      '/V1/SEARCH': 413,
      '/v1/Search/': 413,
      '/v1/solana/price': 413,
      '/v1/solana/price/': 413,
      '/V1/Solana/Price': 413,
    });
  });

  it('the 1 MiB proxy body limit holds with a trailing slash: a 3 MiB body is never quoted, paid or forwarded', async () => {
    const big = { blob: 'x'.repeat(3 * 1024 * 1024) };
    expect((await postJson(gateway, '/v1/services/echo/proxy', big)).status).toBe(413);
    expect((await postJson(gateway, '/v1/services/echo/proxy/', big)).status).toBe(413);
    expect((await postJson(gateway, '/V1/Services/echo/PROXY', big)).status).toBe(413);
    expect(service.seen).toHaveLength(0);
  });

  it('the proxy forwards the JSON body the client sent: a 64-bit integer id reaches the service intact', async () => {
    const raw = '{"account_id":12345678901234567890,"amount":0.10000000000000000555}';
    const quote = await routeQuote(gateway, '/v1/services/echo/proxy', JSON.parse(raw));
    const before = service.seen.length;
    const res = await postJson(gateway, '/v1/services/echo/proxy', raw, { 'payment-signature': specPaymentHeader(world, quote) });
    expect(res.status).toBe(200);
    const forwarded = service.seen.slice(before).map((seen) => seen.body);
    expect(forwarded).toEqual([raw]);
  });

  it('a proxied reply never reaches clients as HTML from the gateway origin, nor sets cookies there', async () => {
    const res = await pay('/v1/services/html/proxy', {});
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
  });

  it('one payment on two concurrent searches: exactly one served and charged once', async () => {
    const quote = await routeQuote(gateway, SEARCH_PATH, { query: 'race' });
    const header = specPaymentHeader(world, quote);
    const before = recipient();
    const [a, b] = await Promise.all([
      postJson(gateway, SEARCH_PATH, { query: 'race' }, { 'payment-signature': header }),
      postJson(gateway, SEARCH_PATH, { query: 'race two' }, { 'payment-signature': header }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 402]);
    expect(recipient() - before).toBe(SEARCH_PRICE);
    expect(world.upstreams.tavily.requests).toHaveLength(1);
  });

  it('a search payment is refused on the price route (resource bound), nothing charged', async () => {
    const quote = await routeQuote(gateway, SEARCH_PATH, { query: 'x' });
    const before = recipient();
    const res = await postJson(gateway, PRICE_PATH, { mints: [Keypair.generate().publicKey.toBase58()] }, { 'payment-signature': specPaymentHeader(world, quote) });
    expect(res.status).toBe(400);
    expect(recipient()).toBe(before);
  });
});

/** The request timeout and client disconnects around a prepaid tool's settlement (GW_REQUEST_TIMEOUT_SECS=1). */
describe('paid tools: timeouts and disconnects around the settlement', () => {
  let world: PaidWorld;
  let rpc: RpcFaultProxy;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    rpc = await startRpcFaultProxy(world.localnet.url);
    gateway = await startPaidGateway(world, {
      ...(await pgliteStorage()).env,
      GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      GW_SOLANA_RPC_URL: rpc.url,
      GW_REQUEST_TIMEOUT_SECS: '1',
      GW_SETTLEMENT_CONFIRM_SECS: '5',
    });
  }, 120_000);
  afterEach(() => {
    rpc.mode({ kind: 'pass' });
    world.upstreams.resetAll();
  });
  afterAll(async () => {
    await gateway.close();
    await rpc.close();
    await world.close();
  });

  const recipient = (): bigint => world.localnet.usdcBalance(world.recipient.publicKey);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 2500));

  it('a 408 during verification charges nothing, and the same payment then buys the search', async () => {
    const header = specPaymentHeader(world, await routeQuote(gateway, SEARCH_PATH, { query: 'slow verify' }));
    const before = recipient();
    rpc.mode({ kind: 'slow', delayMs: 1800, methods: ['simulateTransaction'] });
    const timedOut = await postJson(gateway, SEARCH_PATH, { query: 'slow verify' }, { 'payment-signature': header });
    expect(timedOut.status).toBe(408);
    await settle();
    expect(recipient()).toBe(before);
    expect(rpc.calls('sendTransaction')).toBe(0);
    rpc.mode({ kind: 'pass' });
    const retried = await postJson(gateway, SEARCH_PATH, { query: 'slow verify' }, { 'payment-signature': header });
    expect(retried.status).toBe(200);
    expect(recipient() - before).toBe(SEARCH_PRICE);
  });

  it('a slow broadcast and confirmation past the request timeout still serve the paid answer (never a 408 after the charge)', async () => {
    const header = specPaymentHeader(world, await routeQuote(gateway, SEARCH_PATH, { query: 'slow confirm' }));
    const before = recipient();
    rpc.mode({ kind: 'slow', delayMs: 1200, methods: ['sendTransaction', 'getSignatureStatuses'] });
    const res = await postJson(gateway, SEARCH_PATH, { query: 'slow confirm' }, { 'payment-signature': header });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gw-receipt')).toMatch(/^\/v1\/receipts\//);
    expect(recipient() - before).toBe(SEARCH_PRICE);
  });

  it('a client that leaves during verification is not charged', async () => {
    const header = specPaymentHeader(world, await routeQuote(gateway, SEARCH_PATH, { query: 'leaves' }));
    const before = recipient();
    rpc.mode({ kind: 'slow', delayMs: 700, methods: ['simulateTransaction'] });
    const controller = new AbortController();
    const pending = fetch(`${gateway.url}${SEARCH_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'payment-signature': header },
      body: JSON.stringify({ query: 'leaves' }),
      signal: controller.signal,
    }).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    await pending;
    await settle();
    expect(recipient()).toBe(before);
    expect(world.upstreams.tavily.requests).toHaveLength(0);
  });
});

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

/** Two gateways on one PostgreSQL database and no Redis: each has its own in-memory replay set. */
describeWithPostgres('one payment sent to two gateways sharing storage at once', () => {
  let world: PaidWorld;
  let storage: TestStorage;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    storage = await postgresStorage();
    a = await startPaidGateway(world, { ...storage.env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    b = await startPaidGateway(world, { ...storage.env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
  }, 120_000);
  afterAll(async () => {
    await a.close();
    await b.close();
    await storage.drop();
    await world.close();
  });

  it('is served once and charged once', async () => {
    const recipient = () => world.localnet.usdcBalance(world.recipient.publicKey);
    for (let round = 0; round < 3; round++) {
      const header = specPaymentHeader(world, await routeQuote(a, SEARCH_PATH, { query: `twice ${round}` }));
      const before = recipient();
      const served = world.upstreams.tavily.requests.length;
      const results = await Promise.all([a, b].map((gateway) => postJson(gateway, SEARCH_PATH, { query: `twice ${round}` }, { 'payment-signature': header })));
      const statuses = results.map((res) => res.status).sort();
      expect(statuses).toEqual([200, 402]);
      expect(recipient() - before).toBe(SEARCH_PRICE);
      expect(world.upstreams.tavily.requests.length - served).toBe(1);
    }
  });
});
