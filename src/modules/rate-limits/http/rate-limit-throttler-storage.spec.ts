import { MemoryRateLimitStore } from '../../../adapters/memory/memory-rate-limit-store';
import { rateLimitHeaders } from '../domain/rate-limit-headers';
import { decisionOf, RateLimitThrottlerStorage } from './rate-limit-throttler-storage';

describe('RateLimitThrottlerStorage', () => {
  it('counts on the gateway store and reads back as the same decision, headers included', async () => {
    const store = new MemoryRateLimitStore();
    const storage = new RateLimitThrottlerStorage(store);

    const first = await storage.increment('receipts:ip:1.2.3.4', 60_000, 2);
    const second = await storage.increment('receipts:ip:1.2.3.4', 60_000, 2);
    const third = await storage.increment('receipts:ip:1.2.3.4', 60_000, 2);

    expect(rateLimitHeaders(decisionOf(first, 2))).toEqual({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '60' });
    expect(decisionOf(second, 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(third).toMatchObject({ isBlocked: true, timeToBlockExpire: 60 });
    expect(rateLimitHeaders(decisionOf(third, 2))).toMatchObject({ 'x-ratelimit-remaining': '0', 'retry-after': '60' });
  });
});
