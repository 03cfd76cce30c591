import { Redis } from 'ioredis';
import { startPrivateRedis, type PrivateRedis } from './private-redis';
import { serviceAvailable } from './services';

// redis-server is installed wherever the shared Redis runs; elsewhere this reports itself skipped.
const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

describeWithRedis('startPrivateRedis', () => {
  let redis: PrivateRedis;

  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(() => redis.close());

  const client = (): Redis => new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });

  it('answers on its own port; kill() makes it unreachable; restart() brings it back empty on the same port', async () => {
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(redis.port).not.toBe(6379);
    const first = client();
    await first.connect();
    await first.set('k', 'v');
    first.disconnect();

    await redis.kill();
    const down = client();
    down.on('error', () => undefined);
    await expect(down.connect()).rejects.toThrow();
    down.disconnect();

    await redis.restart();
    const again = client();
    await again.connect();
    expect(await again.get('k')).toBeNull();
    again.disconnect();
  });
});
