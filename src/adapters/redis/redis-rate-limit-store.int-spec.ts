import { Redis } from 'ioredis';
import { rateLimitStoreContract } from '../../../test/contracts/rate-limit-store.contract';
import { closedPort } from '../../../test/support/network';
import { REDIS_TEST_URL, serviceAvailable } from '../../../test/support/services';
import { MemoryRateLimitStore } from '../memory/memory-rate-limit-store';
import { RedisRateLimitStore } from './redis-rate-limit-store';

const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

describeWithRedis('RedisRateLimitStore on Redis (local server)', () => {
  rateLimitStoreContract(async () => {
    const redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 });
    return { store: new RedisRateLimitStore(redis, new MemoryRateLimitStore()), close: async () => void (await redis.quit()) };
  });

  it('shares one window between two clients of the same Redis', async () => {
    const [one, two] = [new Redis(REDIS_TEST_URL), new Redis(REDIS_TEST_URL)];
    const key = `shared-${Date.now()}-${Math.random()}`;
    const a = new RedisRateLimitStore(one, new MemoryRateLimitStore());
    const b = new RedisRateLimitStore(two, new MemoryRateLimitStore());
    expect((await a.hit(key, 2, 60_000)).allowed).toBe(true);
    expect((await b.hit(key, 2, 60_000)).allowed).toBe(true);
    expect((await a.hit(key, 2, 60_000)).allowed).toBe(false);
    await Promise.all([one.quit(), two.quit()]);
  });
});

describe('RedisRateLimitStore with Redis down', () => {
  it('counts in memory instead of failing the request', async () => {
    const redis = new Redis(`redis://127.0.0.1:${await closedPort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const store = new RedisRateLimitStore(redis, new MemoryRateLimitStore());
    expect((await store.hit('k', 1, 60_000)).allowed).toBe(true);
    expect((await store.hit('k', 1, 60_000)).allowed).toBe(false);
    redis.disconnect();
  });
});
