import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { ExactSvmScheme } from '@x402/svm';
import bs58 from 'bs58';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { jupiterFakePrice } from '../../fakes/jupiter-fake';
import { tavilyFakeResults } from '../../fakes/tavily-fake';
import { tempDir, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { paidGatewayOnPglite } from '../../support/paid-gateway-hooks';
import { specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { postJson, PRICE_PATH, routeQuote, SEARCH_PATH, SEARCH_PRICE, TOKEN_PRICE_PRICE } from '../../support/paid-tools';
import { TEST_SEARCH_KEY, UNPRICED_MINT } from '../../support/upstreams';

const coreClient = require('@x402/core/client') as typeof import('@x402/core/dist/cjs/client');
const { wrapFetchWithPayment } = require('@x402/fetch') as typeof import('@x402/fetch/dist/cjs');
const MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

const mint = (): string => Keypair.generate().publicKey.toBase58();

describe('the paid tools on the local chain (spec 4.6, 4.7)', () => {
  const paid = paidGatewayOnPglite();

  const recipient = (): bigint => paid.world.localnet.usdcBalance(paid.world.recipient.publicKey);
  const pay = async (path: string, body: unknown, payer = paid.world.payer): Promise<Response> =>
    postJson(paid.gateway, path, body, { 'payment-signature': specPaymentHeader(paid.world, await routeQuote(paid.gateway, path, body), { payer }) });
  const receiptOf = async (res: Response): Promise<Record<string, unknown>> => (await (await fetch(`${paid.gateway.url}${res.headers.get('x-gw-receipt')}`)).json()) as Record<string, unknown>;

  it('quotes each tool at its flat price, body and header, without the chat discovery extensions', async () => {
    for (const [path, body, price, provider] of [
      [SEARCH_PATH, { query: 'solana' }, SEARCH_PRICE, '0.010000'],
      [PRICE_PATH, { mints: [mint()] }, TOKEN_PRICE_PRICE, '0.001000'],
    ] as const) {
      const res = await postJson(paid.gateway, path, body);
      expect(res.status).toBe(402);
      const quote = (await res.json()) as Record<string, unknown>;
      expect(quote).toMatchObject({
        x402_version: 2,
        resource: { url: path, method: 'POST' },
        accepts: [{ scheme: 'exact', network: MAINNET, amount: price.toString(), pay_to: paid.world.recipient.publicKey.toBase58(), max_timeout_seconds: 300 }],
        cost_breakdown: { provider_cost: provider, total: `0.${price.toString().padStart(6, '0')}`, currency: 'USDC', fee_percent: 5 },
        error: 'Payment required',
      });
      expect(quote.extensions).toBeUndefined();
      const header = await routeQuote(paid.gateway, path, body);
      expect(header.accepts).toEqual([expect.objectContaining({ scheme: 'exact', amount: price.toString(), extra: expect.objectContaining({ decimals: 6 }) })]);
    }
  });

  it('the unmodified @x402/fetch client pays for a search: the recipient gains exactly 10,500 atomic units', async () => {
    const buyer = Keypair.generate();
    paid.world.localnet.fundUsdc(buyer.publicKey, 1_000_000n);
    const client = new coreClient.x402Client().register(MAINNET, new ExactSvmScheme(await createKeyPairSignerFromBytes(buyer.secretKey), { rpcUrl: paid.world.localnet.url }));
    const before = recipient();

    const res = await wrapFetchWithPayment(fetch, client)(`${paid.gateway.url}${SEARCH_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '  solana fees  ', max_results: 3 }),
    });

    expect(res.status).toBe(200);
    const expected = tavilyFakeResults('solana fees', 3).map(({ title, url, content }) => ({ title, url, snippet: content }));
    expect(await res.json()).toEqual({ query: 'solana fees', results: expected, provider: 'tavily' });
    expect(recipient() - before).toBe(SEARCH_PRICE);
    expect(paid.world.localnet.usdcBalance(buyer.publicKey)).toBe(1_000_000n - SEARCH_PRICE);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response') as string)).toMatchObject({ success: true, payer: buyer.publicKey.toBase58() });
    expect(await receiptOf(res)).toMatchObject({ status: 'settled', endpoint: SEARCH_PATH, model: null, amount_charged_atomic: SEARCH_PRICE.toString(), payer_wallet: buyer.publicKey.toBase58() });
    expect(paid.world.upstreams.tavily.requests[0]).toMatchObject({ path: '/search', body: { query: 'solana fees', max_results: 3 } });
    expect(paid.world.upstreams.tavily.requests[0].headers.authorization).toBe(`Bearer ${TEST_SEARCH_KEY}`);
  });

  it('the unmodified @x402/fetch client pays for prices: 1,050 atomic units', async () => {
    const buyer = Keypair.generate();
    paid.world.localnet.fundUsdc(buyer.publicKey, 100_000n);
    const client = new coreClient.x402Client().register(MAINNET, new ExactSvmScheme(await createKeyPairSignerFromBytes(buyer.secretKey), { rpcUrl: paid.world.localnet.url }));
    const before = recipient();
    const asked = mint();
    const res = await wrapFetchWithPayment(fetch, client)(`${paid.gateway.url}${PRICE_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mints: [asked] }),
    });
    expect(res.status).toBe(200);
    expect(recipient() - before).toBe(TOKEN_PRICE_PRICE);
    expect(paid.world.localnet.usdcBalance(buyer.publicKey)).toBe(100_000n - TOKEN_PRICE_PRICE);
  });

  it('a spec-form client pays for prices: request order, unknown and repeated mints null, as_of in RFC 3339 UTC', async () => {
    const [a, b] = [mint(), mint()];
    const unknown = UNPRICED_MINT;
    const before = recipient();

    const res = await pay(PRICE_PATH, { mints: [b, unknown, a, b] });

    expect(res.status).toBe(200);
    const answer = (await res.json()) as { prices: Array<{ mint: string; price: unknown }>; source: string; as_of: string };
    const wire = (m: string) => {
      const entry = jupiterFakePrice(m);
      return { usd_price: entry.usdPrice, decimals: entry.decimals, block_id: entry.blockId, price_change_24h: entry.priceChange24h };
    };
    expect(answer.prices).toEqual([
      { mint: b, price: wire(b) },
      { mint: unknown, price: null },
      { mint: a, price: wire(a) },
      { mint: b, price: null },
    ]);
    expect(answer.source).toBe('jupiter');
    expect(answer.as_of).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(recipient() - before).toBe(TOKEN_PRICE_PRICE);
    expect(paid.world.upstreams.jupiter.requests[0].query.ids.split(',')).toEqual([b, unknown, a]);
  });

  it('refuses invalid bodies with 400 before any payment work: no quote, nothing charged, the upstream never called', async () => {
    const before = recipient();
    const short = bs58.encode(Buffer.alloc(31, 1));
    const cases: Array<[string, unknown]> = [
      [SEARCH_PATH, {}],
      [SEARCH_PATH, { query: '   ' }],
      [SEARCH_PATH, { query: 'x'.repeat(2001) }],
      [SEARCH_PATH, { query: 42 }],
      [SEARCH_PATH, { query: 'ok', max_results: 2.5 }],
      [SEARCH_PATH, { query: 'ok', max_results: '5' }],
      [SEARCH_PATH, { query: 'ok', extra: true }],
      [SEARCH_PATH, ['query']],
      [PRICE_PATH, { mints: [] }],
      [PRICE_PATH, { mints: Array.from({ length: 51 }, mint) }],
      [PRICE_PATH, { mints: ['not-base58-0OIl'] }],
      [PRICE_PATH, { mints: [short] }],
      [PRICE_PATH, { mints: 'So11111111111111111111111111111111111111112' }],
      [PRICE_PATH, {}],
    ];
    for (const [path, body] of cases) {
      // With a payment header too: validation comes before the payment is even decoded.
      for (const headers of [{}, { 'payment-signature': 'not-a-payment' }] as Array<Record<string, string>>) {
        const res = await postJson(paid.gateway, path, body, headers);
        expect({ path, body, status: res.status }).toEqual({ path, body, status: 400 });
        expect(res.headers.get('payment-required')).toBeNull();
        expect(((await res.json()) as { error: { type: string } }).error.type).toBe('bad_request');
      }
    }
    expect(recipient()).toBe(before);
    expect(paid.world.upstreams.tavily.requests).toHaveLength(0);
    expect(paid.world.upstreams.jupiter.requests).toHaveLength(0);
  });

  it('accepts a query of exactly 2,000 characters (emoji count once) and 50 mints; clamps max_results to 1..20', async () => {
    expect((await postJson(paid.gateway, SEARCH_PATH, { query: '🙂'.repeat(2000) })).status).toBe(402);
    expect((await postJson(paid.gateway, PRICE_PATH, { mints: Array.from({ length: 50 }, mint) })).status).toBe(402);
    expect((await pay(SEARCH_PATH, { query: 'many', max_results: 500 })).status).toBe(200);
    expect((await pay(SEARCH_PATH, { query: 'none', max_results: 0 })).status).toBe(200);
    expect(paid.world.upstreams.tavily.requests.map((request) => (request.body as { max_results: number }).max_results)).toEqual([20, 1]);
  });

  it('bounds the bodies: 64 KiB for search, 16 KiB for prices (413)', async () => {
    expect((await postJson(paid.gateway, SEARCH_PATH, { query: 'q', pad: 'x'.repeat(64 * 1024) })).status).toBe(413);
    expect((await postJson(paid.gateway, PRICE_PATH, { mints: [mint()], pad: 'x'.repeat(16 * 1024) })).status).toBe(413);
  });

  it('an upstream failure after settlement is a 502 with the static body, charged, with a receipt, a spend row and x-gw-receipt', async () => {
    for (const [path, body, price, fake, expected] of [
      [SEARCH_PATH, { query: 'fails' }, SEARCH_PRICE, 'tavily', 'search provider error'],
      [PRICE_PATH, { mints: [mint()] }, TOKEN_PRICE_PRICE, 'jupiter', 'price provider error'],
    ] as const) {
      paid.world.upstreams[fake].script({ kind: 'status', status: 500 });
      const before = recipient();
      const res = await pay(path, body);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: expected });
      expect(recipient() - before).toBe(price);
      expect(res.headers.get('x-gw-receipt')).toMatch(/^\/v1\/receipts\/[0-9a-f-]{36}$/);
      expect(await receiptOf(res)).toMatchObject({ status: 'settled', amount_charged_atomic: price.toString(), endpoint: path });
    }
    const stats = await fetch(`${paid.gateway.url}/v1/wallets/${paid.world.payer.publicKey.toBase58()}/stats?days=1`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    const byModel = ((await stats.json()) as { by_model: Array<{ model: string; requests: number }> }).by_model;
    expect(byModel.map((row) => row.model)).toEqual(expect.arrayContaining(['web-search', 'token-price']));
  });

  it('a malformed upstream answer is a 502; a price entry missing its fields is null, not invented', async () => {
    paid.world.upstreams.tavily.script({ kind: 'malformed' });
    const malformed = await pay(SEARCH_PATH, { query: 'broken' });
    expect(malformed.status).toBe(502);
    expect(await malformed.json()).toEqual({ error: 'search provider error' });
    paid.world.upstreams.jupiter.script({ kind: 'missing-fields' });
    const missing = await pay(PRICE_PATH, { mints: [mint()] });
    expect(missing.status).toBe(200);
    expect(((await missing.json()) as { prices: Array<{ price: unknown }> }).prices[0].price).toBeNull();
  });

  it('never caches a tool answer: the same paid search twice calls the upstream twice', async () => {
    expect((await pay(SEARCH_PATH, { query: 'same' })).status).toBe(200);
    expect((await pay(SEARCH_PATH, { query: 'same' })).status).toBe(200);
    expect(paid.world.upstreams.tavily.requests).toHaveLength(2);
  });

  it('an escrow payment is a 400 scheme/payload mismatch (never downgraded); a channel voucher is a 404', async () => {
    const header = await routeQuote(paid.gateway, SEARCH_PATH, { query: 'q' });
    const offer = header.accepts[0];
    const escrow = {
      x402_version: 2,
      resource: { url: SEARCH_PATH, method: 'POST' },
      accepted: { scheme: 'escrow', network: offer.network, amount: offer.amount, asset: offer.asset, pay_to: offer.payTo, max_timeout_seconds: 300 },
      payload: { deposit_tx: Buffer.from('tx').toString('base64'), service_id: Buffer.alloc(32).toString('base64'), agent_pubkey: paid.world.payer.publicKey.toBase58() },
    };
    const refused = await postJson(paid.gateway, SEARCH_PATH, { query: 'q' }, { 'payment-signature': JSON.stringify(escrow) });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('payment.scheme_payload_mismatch');
    const channel = {
      ...escrow,
      accepted: { ...escrow.accepted, scheme: 'channel' },
      payload: { request_digest: Buffer.alloc(32).toString('base64'), cumulative: '100', expiry_slot: 1000, signature: 'x' },
    };
    expect((await postJson(paid.gateway, SEARCH_PATH, { query: 'q' }, { 'payment-signature': JSON.stringify(channel) })).status).toBe(404);
    expect(paid.world.upstreams.tavily.requests).toHaveLength(0);
  });

  it('refuses a budgeted payer wallet with 403 on both tools after verification, with no balance moved', async () => {
    const budgeted = Keypair.generate();
    paid.world.localnet.airdrop(budgeted.publicKey, 1_000_000_000);
    paid.world.localnet.fundUsdc(budgeted.publicKey, 1_000_000n);
    const setBudget = await fetch(`${paid.gateway.url}/v1/wallets/${budgeted.publicKey.toBase58()}/budget`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: JSON.stringify({ daily: 100 }),
    });
    expect(setBudget.status).toBe(200);
    for (const [path, body] of [
      [SEARCH_PATH, { query: 'q' }],
      [PRICE_PATH, { mints: [mint()] }],
    ] as const) {
      const res = await pay(path, body, budgeted);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'forbidden', code: 'budget.payer_budgeted' });
    }
    expect(paid.world.localnet.usdcBalance(budgeted.publicKey)).toBe(1_000_000n);
    expect(paid.world.upstreams.tavily.requests).toHaveLength(0);
    expect(paid.world.upstreams.jupiter.requests).toHaveLength(0);
  });

  it('a replayed payment is refused and charges nothing twice', async () => {
    const body = { query: 'once' };
    const header = specPaymentHeader(paid.world, await routeQuote(paid.gateway, SEARCH_PATH, body));
    const before = recipient();
    expect((await postJson(paid.gateway, SEARCH_PATH, body, { 'payment-signature': header })).status).toBe(200);
    const again = await postJson(paid.gateway, SEARCH_PATH, body, { 'payment-signature': header });
    expect(again.status).toBe(402);
    expect(decodePaymentRequiredHeader(again.headers.get('payment-required') as string)).toMatchObject({ error: 'duplicate_settlement', accepts: [{ amount: SEARCH_PRICE.toString() }] });
    expect(again.headers.get('payment-response')).toBeNull();
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('payment.replayed');
    expect(recipient() - before).toBe(SEARCH_PRICE);
    expect(paid.world.upstreams.tavily.requests).toHaveLength(1);
  });
});

describe('the paid tools turned off, and a slow upstream', () => {
  let world: PaidWorld;
  const gateways: RunningGateway[] = [];

  beforeAll(async () => {
    world = await startPaidWorld();
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await world.close();
  });

  const start = async (env: Record<string, string | undefined>): Promise<RunningGateway> => {
    const gateway = await startPaidGateway(world, env);
    gateways.push(gateway);
    return gateway;
  };
  const servicesFile = (services: unknown[]): string => {
    const path = join(tempDir(), 'services.json');
    writeFileSync(path, JSON.stringify({ services }));
    return path;
  };
  const expectOff = async (gateway: RunningGateway, path: string, body: unknown): Promise<void> => {
    const res = await postJson(gateway, path, body);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'service_unavailable', code: 'tools.not_configured' });
  };

  it('a registry file without the token-price entry, or with web-search unpriced or priced 0, turns those tools off (503)', async () => {
    const search = { id: 'web-search', name: 'Web search', category: 'search', endpoint: '/v1/search', x402_enabled: true, internal: true };
    const withoutPrices = await start({ GW_SERVICES_FILE: servicesFile([{ ...search, price_per_request_usdc: null }]) });
    await expectOff(withoutPrices, SEARCH_PATH, { query: 'q' });
    await expectOff(withoutPrices, PRICE_PATH, { mints: [mint()] });
    const listed = (await (await fetch(`${withoutPrices.url}/v1/services`)).json()) as { data: Array<{ id: string; price_per_request_usdc: unknown }> };
    expect(listed.data).toEqual([expect.objectContaining({ id: 'web-search', price_per_request_usdc: null })]);
    await expectOff(await start({ GW_SERVICES_FILE: servicesFile([{ ...search, price_per_request_usdc: 0 }]) }), SEARCH_PATH, { query: 'q' });
  });

  it('no search API key turns search off (503) while prices still quote', async () => {
    const gateway = await start({ GW_SEARCH_API_KEY: undefined });
    await expectOff(gateway, SEARCH_PATH, { query: 'q' });
    expect((await postJson(gateway, PRICE_PATH, { mints: [mint()] })).status).toBe(402);
  });

  it('an upstream slower than GW_TOOL_TIMEOUT_SECS is a charged 502', async () => {
    const gateway = await start({ GW_TOOL_TIMEOUT_SECS: '1' });
    world.upstreams.tavily.script({ kind: 'slow', delayMs: 2_500 });
    const before = world.localnet.usdcBalance(world.recipient.publicKey);
    const body = { query: 'slow' };
    const res = await postJson(gateway, SEARCH_PATH, body, { 'payment-signature': specPaymentHeader(world, await routeQuote(gateway, SEARCH_PATH, body)) });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: 'search provider error' });
    expect(world.localnet.usdcBalance(world.recipient.publicKey) - before).toBe(SEARCH_PRICE);
  });
});
