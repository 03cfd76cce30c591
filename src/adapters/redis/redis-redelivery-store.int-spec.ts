import { Redis } from 'ioredis';
import { keptAnswer, redeliveryStoreContract } from '../../../test/contracts/redelivery-store.contract';
import { closedPort } from '../../../test/support/network';
import { REDIS_TEST_URL, serviceAvailable } from '../../../test/support/services';
import { MemoryRedeliveryStore } from '../memory/memory-redelivery-store';
import { RedisRedeliveryStore } from './redis-redelivery-store';

const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

describeWithRedis('RedisRedeliveryStore on Redis (local server)', () => {
  redeliveryStoreContract(async () => {
    const redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 });
    return { store: new RedisRedeliveryStore(redis, new MemoryRedeliveryStore()), close: async () => void (await redis.quit()) };
  });

  it('shares a kept answer between two instances', async () => {
    const [a, b] = [new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 }), new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 })];
    try {
      const answer = keptAnswer();
      await new RedisRedeliveryStore(a, new MemoryRedeliveryStore()).keep('shared-key-' + answer.fingerprint, answer, 60_000);
      expect(await new RedisRedeliveryStore(b, new MemoryRedeliveryStore()).find('shared-key-' + answer.fingerprint)).toEqual(answer);
    } finally {
      await Promise.all([a.quit(), b.quit()]);
    }
  });
});

describe('RedisRedeliveryStore with Redis down', () => {
  it("keeps answers in this instance's memory instead of failing", async () => {
    const redis = new Redis(`redis://127.0.0.1:${await closedPort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const store = new RedisRedeliveryStore(redis, new MemoryRedeliveryStore());
    const answer = keptAnswer();
    await expect(store.keep('k', answer, 60_000)).resolves.toBeUndefined();
    expect(await store.find('k')).toEqual(answer);
    redis.disconnect();
  });
});
