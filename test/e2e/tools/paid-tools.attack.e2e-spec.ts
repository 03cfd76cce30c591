import type { ServerResponse } from 'node:http';
import { Keypair } from '@solana/web3.js';
import type { RunningGateway } from '../../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { startHttpsService, type HttpsService, type SeenRequest } from '../../support/https-service';
import { specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { postJson, PRICE_PATH, routeQuote, SEARCH_PATH, SEARCH_PRICE } from '../../support/paid-tools';
import { ScriptedResolver } from '../../support/scripted-resolver';
import { pgliteStorage } from '../../support/storage-env';

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
