import type { RunningGateway } from '../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../support/gateway-harness';
import { specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../support/paid-gateway';
import { postJson, routeQuote, SEARCH_PATH, SEARCH_PRICE } from '../support/paid-tools';
import { serviceAvailable } from '../support/services';
import { postgresStorage, type TestStorage } from '../support/storage-env';

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
