import { rateLimitStoreContract } from '../../../test/contracts/rate-limit-store.contract';
import { MemoryRateLimitStore } from './memory-rate-limit-store';

describe('MemoryRateLimitStore', () => {
  rateLimitStoreContract(async () => ({ store: new MemoryRateLimitStore(), close: async () => undefined }));

  it('reports the seconds left in the window, rounded up', async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore(() => now);
    expect((await store.hit('k', 5, 60_000)).resetSecs).toBe(60);
    now += 59_001;
    expect((await store.hit('k', 5, 60_000)).resetSecs).toBe(1);
  });
});
