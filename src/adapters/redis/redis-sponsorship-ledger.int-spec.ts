import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { sponsorshipLedgerContract } from '../../../test/contracts/sponsorship-ledger.contract';
import { closedPort } from '../../../test/support/network';
import { REDIS_TEST_URL, serviceAvailable } from '../../../test/support/services';
import { MemorySponsorshipLedger } from '../memory/memory-sponsorship-ledger';
import { RedisSponsorshipLedger } from './redis-sponsorship-ledger';

const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

describeWithRedis('RedisSponsorshipLedger on Redis (local server)', () => {
  let redis: Redis;
  sponsorshipLedgerContract(async () => {
    redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 0 });
    await redis.ping();
    return { ledger: new RedisSponsorshipLedger(redis, new MemorySponsorshipLedger()), close: async () => void (await redis.quit()) };
  });

  it('shares the counters between instances, and lets them expire after two windows', async () => {
    const other = new Redis(REDIS_TEST_URL);
    const [a, b] = [new RedisSponsorshipLedger(redis, new MemorySponsorshipLedger()), new RedisSponsorshipLedger(other, new MemorySponsorshipLedger())];
    const bound = { key: randomUUID(), limit: 100n };
    const window = 5_000_000_000 + Math.floor(Math.random() * 1_000_000);
    expect((await a.charge(window, [bound], 60n, 60_000)).charged).toBe(true);
    expect(await b.charge(window, [bound], 60n, 60_000)).toEqual({ charged: false, refusedBy: 0, totals: [60n] });
    const ttl = await redis.pttl(`gw:sp:${window}:${bound.key}`);
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    await other.quit();
  });
});

describe('RedisSponsorshipLedger with Redis down', () => {
  it('counts in memory', async () => {
    const redis = new Redis(`redis://127.0.0.1:${await closedPort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const ledger = new RedisSponsorshipLedger(redis, new MemorySponsorshipLedger());
    const bound = { key: 'global', limit: 100n };
    expect((await ledger.charge(1, [bound], 60n, 60_000)).charged).toBe(true);
    expect((await ledger.charge(1, [bound], 60n, 60_000)).charged).toBe(false);
    expect(await ledger.total(1, 'global')).toBe(60n);
    redis.disconnect();
  });
});
