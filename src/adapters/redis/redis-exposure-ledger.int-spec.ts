import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { exposureLedgerContract } from '../../../test/contracts/exposure-ledger.contract';
import { closedPort } from '../../../test/support/network';
import { startPrivateRedis, type PrivateRedis } from '../../../test/support/private-redis';
import { REDIS_TEST_URL, serviceAvailable } from '../../../test/support/services';
import { MemoryExposureLedger } from '../memory/memory-exposure-ledger';
import { RedisExposureLedger } from './redis-exposure-ledger';

const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

describeWithRedis('RedisExposureLedger on Redis (local server)', () => {
  let redis: Redis;
  exposureLedgerContract(async () => {
    redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 });
    await redis.ping();
    return { ledger: new RedisExposureLedger(redis, new MemoryExposureLedger()), close: async () => void (await redis.quit()) };
  });

  it('shares debits and versions between instances', async () => {
    const other = new Redis(REDIS_TEST_URL);
    const [a, b] = [new RedisExposureLedger(redis, new MemoryExposureLedger()), new RedisExposureLedger(other, new MemoryExposureLedger())];
    const source = randomUUID();
    expect(await a.admit({ source, id: 'x', amount: 60n }, 100n, 0, 60_000)).toBe(true);
    expect(await b.admit({ source, id: 'y', amount: 60n }, 100n, 0, 60_000)).toBe(false);
    await a.landed(source, 'x');
    expect(await b.version(source)).toBe(1);
    await other.quit();
  });
});

describe('RedisExposureLedger with Redis down', () => {
  it('bounds what this instance admitted, in memory', async () => {
    const redis = new Redis(`redis://127.0.0.1:${await closedPort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const ledger = new RedisExposureLedger(redis, new MemoryExposureLedger());
    expect(await ledger.version('s')).toBe(0);
    expect(await ledger.admit({ source: 's', id: 'a', amount: 60n }, 100n, 0, 60_000)).toBe(true);
    expect(await ledger.admit({ source: 's', id: 'b', amount: 60n }, 100n, 0, 60_000)).toBe(false);
    await ledger.remove('s', 'a');
    expect(await ledger.admit({ source: 's', id: 'b', amount: 60n }, 100n, 0, 60_000)).toBe(true);
    redis.disconnect();
  });
});

describeWithRedis('the Redis exposure ledger with amounts past 2^53', () => {
  let redis: PrivateRedis;
  let client: Redis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
  });
  afterAll(async () => {
    client.disconnect();
    await redis.close();
  });

  it('counts exactly as the memory ledger does (Lua numbers round above 2^53)', async () => {
    const balance = 2n ** 53n;
    const verdicts = [];
    for (const ledger of [new MemoryExposureLedger(), new RedisExposureLedger(client, new MemoryExposureLedger())]) {
      const source = randomUUID();
      const first = await ledger.admit({ source, id: 'a', amount: 1n }, balance, 0, 60_000);
      // 2^53 + 1 in flight against a balance of 2^53: one unit more than the source holds.
      const second = await ledger.admit({ source, id: 'b', amount: balance }, balance, 0, 60_000);
      verdicts.push({ first, second });
    }
    expect(verdicts).toEqual([
      { first: true, second: false },
      { first: true, second: false },
    ]);
  });
});
