import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { a2aTask, taskStoreContract } from '../../../test/contracts/task-store.contract';
import { closedPort } from '../../../test/support/network';
import { REDIS_TEST_URL, serviceAvailable } from '../../../test/support/services';
import { RedisLocks } from './redis-locks';
import { A2A_KEY_PREFIX, RedisTaskStore } from './redis-task-store';

const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

/** A key prefix of this run's own on the shared Redis: its keys are found and deleted afterwards, and nobody else's are touched. */
function testPrefix(): string {
  return `gw:test:a2a:${randomUUID()}:`;
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>) keys.push(...batch);
  if (keys.length > 0) await redis.del(...keys);
}

describeWithRedis('RedisTaskStore and RedisLocks on Redis (local server)', () => {
  taskStoreContract(async () => {
    const redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 });
    const prefix = testPrefix();
    return {
      store: new RedisTaskStore(redis, prefix),
      locks: new RedisLocks(redis, prefix),
      close: async () => {
        await deleteKeys(redis, prefix);
        await redis.quit();
      },
    };
  });

  it('shares tasks and locks between two instances', async () => {
    const [a, b] = [new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 }), new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 })];
    const prefix = testPrefix();
    try {
      const task = a2aTask();
      await new RedisTaskStore(a, prefix).create(task, 60_000);
      expect(await new RedisTaskStore(b, prefix).get(task.id)).toEqual(task);
      expect(await new RedisTaskStore(b, prefix).replace({ ...task, state: 'canceled' }, 'input-required', 60_000)).toBe(true);
      expect(await new RedisTaskStore(a, prefix).replace({ ...task, state: 'working' }, 'input-required', 60_000)).toBe(false);
      const token = await new RedisLocks(a, prefix).acquire(task.id, 60_000);
      expect(token).not.toBeNull();
      expect(await new RedisLocks(b, prefix).acquire(task.id, 60_000)).toBeNull();
    } finally {
      await deleteKeys(a, prefix);
      await Promise.all([a.quit(), b.quit()]);
    }
  });

  it('keeps a task as JSON under gw:a2a:task:<id> by default, expiring with the TTL', async () => {
    const redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 });
    const task = a2aTask();
    const key = `${A2A_KEY_PREFIX}task:${task.id}`;
    try {
      await new RedisTaskStore(redis).create(task, 60_000);
      expect(JSON.parse((await redis.get(key))!)).toEqual(task);
      expect(await redis.pttl(key)).toBeGreaterThan(50_000);
    } finally {
      await redis.del(key);
      await redis.quit();
    }
  });

  it('never overwrites a stored value it cannot read as a task', async () => {
    const redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 });
    const prefix = testPrefix();
    const task = a2aTask();
    try {
      await redis.set(`${prefix}task:${task.id}`, 'not json', 'PX', 60_000);
      expect(await new RedisTaskStore(redis, prefix).replace({ ...task, state: 'working' }, 'input-required', 60_000)).toBe(false);
      expect(await redis.get(`${prefix}task:${task.id}`)).toBe('not json');
    } finally {
      await deleteKeys(redis, prefix);
      await redis.quit();
    }
  });
});

describe('RedisTaskStore and RedisLocks with Redis down', () => {
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(`redis://127.0.0.1:${await closedPort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  });
  afterAll(() => redis.disconnect());

  it('fails every task operation rather than keeping tasks where other instances cannot see them', async () => {
    const store = new RedisTaskStore(redis);
    const task = a2aTask();
    await expect(store.create(task, 60_000)).rejects.toThrow();
    await expect(store.get(task.id)).rejects.toThrow();
    await expect(store.replace({ ...task, state: 'working' }, 'input-required', 60_000)).rejects.toThrow();
  });

  it('fails to take a lock, and a release leaves the lock to lapse', async () => {
    const locks = new RedisLocks(redis, A2A_KEY_PREFIX);
    await expect(locks.acquire('a2a_x', 60_000)).rejects.toThrow();
    await expect(locks.release('a2a_x', 'token')).resolves.toBeUndefined();
  });
});
