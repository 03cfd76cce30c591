import { Registry } from 'prom-client';
import { MemoryRateLimitStore } from '../../../adapters/memory/memory-rate-limit-store';
import { RateLimitMetrics } from '../application/rate-limit-metrics';
import { rateLimitHeaders } from '../domain/rate-limit-headers';
import { decisionOf, RateLimitThrottlerStorage } from './rate-limit-throttler-storage';

describe('RateLimitThrottlerStorage', () => {
  it('counts on the gateway store and reads back as the same decision, headers included', async () => {
    const store = new MemoryRateLimitStore();
    const registry = new Registry();
    const storage = new RateLimitThrottlerStorage(store, new RateLimitMetrics(registry));

    const first = await storage.increment('receipts:ip:1.2.3.4', 60_000, 2);
    const second = await storage.increment('receipts:ip:1.2.3.4', 60_000, 2);
    const third = await storage.increment('receipts:ip:1.2.3.4', 60_000, 2);

    expect(rateLimitHeaders(decisionOf(first, 2))).toEqual({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '60' });
    expect(decisionOf(second, 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(third).toMatchObject({ isBlocked: true, timeToBlockExpire: 60 });
    expect(rateLimitHeaders(decisionOf(third, 2))).toMatchObject({ 'x-ratelimit-remaining': '0', 'retry-after': '60' });
    // The refusal is counted under the route's name, never the client's address.
    expect(await registry.metrics()).toContain('gw_rate_limit_rejections_total{limiter="route:receipts"} 1');
  });
});
