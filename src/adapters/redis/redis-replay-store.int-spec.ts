import { Redis } from 'ioredis';
import { replayStoreContract } from '../../../test/contracts/replay-store.contract';
import { closedPort } from '../../../test/support/network';
import { REDIS_TEST_URL, serviceAvailable } from '../../../test/support/services';
import { MemoryReplayStore } from '../memory/memory-replay-store';
import { RedisReplayStore } from './redis-replay-store';

const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

describeWithRedis('RedisReplayStore on Redis (local server)', () => {
  let redis: Redis;
  replayStoreContract(async () => {
    redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 });
    await redis.ping();
    return { store: new RedisReplayStore(redis, new MemoryReplayStore()), close: async () => void (await redis.quit()) };
  });

  it('is durable while Redis answers', () => {
    expect(new RedisReplayStore(redis, new MemoryReplayStore()).durable()).toBe(true);
  });

  it('refuses across instances a signature one of them claimed', async () => {
    const other = new Redis(REDIS_TEST_URL);
    const [a, b] = [new RedisReplayStore(redis, new MemoryReplayStore()), new RedisReplayStore(other, new MemoryReplayStore())];
    const signature = `sig-${Date.now()}`;
    expect(await a.claim(signature, 60_000)).toBe(true);
    expect(await b.seen(signature)).toBe(true);
    expect(await b.claim(signature, 60_000)).toBe(false);
    await other.quit();
  });
});

describe('RedisReplayStore with Redis down', () => {
  it('protects in memory and is not durable', async () => {
    const redis = new Redis(`redis://127.0.0.1:${await closedPort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const store = new RedisReplayStore(redis, new MemoryReplayStore());
    expect(await store.claim('sig', 60_000)).toBe(true);
    expect(await store.claim('sig', 60_000)).toBe(false);
    expect(store.durable()).toBe(false);
    redis.disconnect();
  });
});
