import { Redis } from 'ioredis';
import { completion, responseCacheContract } from '../../../test/contracts/response-cache.contract';
import { closedPort } from '../../../test/support/network';
import { REDIS_TEST_URL, serviceAvailable } from '../../../test/support/services';
import { RedisResponseCache } from './redis-response-cache';

const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

describeWithRedis('RedisResponseCache on Redis (local server)', () => {
  responseCacheContract(async () => {
    const redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 });
    return { cache: new RedisResponseCache(redis), close: async () => void (await redis.quit()) };
  });
});

describe('RedisResponseCache with Redis down', () => {
  it('misses and drops writes instead of failing', async () => {
    const redis = new Redis(`redis://127.0.0.1:${await closedPort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const cache = new RedisResponseCache(redis);
    await expect(cache.set('k', completion(), 60)).resolves.toBeUndefined();
    await expect(cache.get('k')).resolves.toBeNull();
    redis.disconnect();
  });
});
