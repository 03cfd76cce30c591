import type { RunningGateway } from '../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../support/gateway-harness';
import { specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../support/paid-gateway';
import { postJson, routeQuote, SEARCH_PATH, SEARCH_PRICE } from '../support/paid-tools';
import { startRpcFaultProxy, type RpcFaultProxy } from '../support/rpc-fault-proxy';
import { pgliteStorage } from '../support/storage-env';

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
