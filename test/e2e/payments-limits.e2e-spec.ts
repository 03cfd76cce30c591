import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../support/paid-gateway';
import { emptyRedisDatabase, serviceAvailable } from '../support/services';

describe('paid requests: storage off, the paid rate limit, replay across instances', () => {
  let world: PaidWorld;

  beforeAll(async () => {
    world = await startPaidWorld();
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(() => world.close());

  it('with GW_STORAGE=none a paid answer carries no X-Gw-Receipt, and the receipt route answers 503', async () => {
    const gateway = await startPaidGateway(world, { GW_STORAGE: 'none' });
    try {
      const { header } = await quote(gateway, chatBody());
      const res = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-gw-receipt')).toBeNull();
      expect(res.headers.get('payment-response')).not.toBeNull();
      const receipts = await fetch(`${gateway.url}/v1/receipts/0f8fad5b-d9cb-469f-a165-70867728950e`);
      expect(receipts.status).toBe(503);
      expect(await receipts.json()).toEqual({ error: { type: 'service_unavailable', message: 'receipt storage is not configured', code: 'receipt.storage_not_configured', param: null } });
    } finally {
      await gateway.close();
    }
  });

  it('limits paid requests per payer wallet (GW_RATE_LIMIT_MAX), with the spec headers; health and models are exempt', async () => {
    const gateway = await startPaidGateway(world, { GW_RATE_LIMIT_MAX: '3' });
    try {
      const { header } = await quote(gateway, chatBody()); // one quote: one request on this client's IP bucket
      for (let i = 0; i < 3; i++) {
        const res = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('3');
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
      }
      const before = world.localnet.usdcBalance(world.payer.publicKey);
      const refused = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ error: { type: 'rate_limit_exceeded', message: 'Too many requests. Please slow down.', code: 'rate_limit.exceeded', param: null } });
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(world.localnet.usdcBalance(world.payer.publicKey)).toBe(before);
      // Another wallet is not affected by this one's bucket... but quotes from this IP are (one used, two left).
      expect((await postChat(gateway, chatBody())).status).toBe(402);
      expect((await postChat(gateway, chatBody())).status).toBe(402);
      expect((await postChat(gateway, chatBody())).status).toBe(429);
      for (let i = 0; i < 5; i++) {
        expect((await fetch(`${gateway.url}/v1/models`)).status).toBe(200);
        expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
      }
    } finally {
      await gateway.close();
    }
  });

  const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;
  describeWithRedis('two gateways sharing Redis', () => {
    it('refuse on one instance a payment the other served', async () => {
      const url = await emptyRedisDatabase(8);
      const [one, two] = await Promise.all([startPaidGateway(world, { REDIS_URL: url }), startPaidGateway(world, { REDIS_URL: url })]);
      try {
        const { header } = await quote(one, chatBody());
        const payment = specPaymentHeader(world, header);
        expect((await postChat(one, chatBody(), { 'payment-signature': payment })).status).toBe(200);
        const replay = await postChat(two, chatBody(), { 'payment-signature': payment });
        expect(replay.status).toBe(402);
        expect(((await replay.json()) as { error: { message: string } }).error.message).toBe('transaction has already been used; each payment signature may only be submitted once');
        // And in parallel across both, one copy wins.
        const fresh = specPaymentHeader(world, header);
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => postChat(i % 2 ? one : two, chatBody(), { 'payment-signature': fresh })));
        expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });
  });
});
