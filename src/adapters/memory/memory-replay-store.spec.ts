import { replayStoreContract } from '../../../test/contracts/replay-store.contract';
import { ReplayStoreFull } from '../../modules/payments/ports/replay-store';
import { MemoryReplayStore } from './memory-replay-store';

describe('MemoryReplayStore', () => {
  replayStoreContract(async () => ({ store: new MemoryReplayStore(), close: async () => undefined }));

  it('is bounded: at capacity it drops expired claims, and refuses rather than forget a live one', async () => {
    let now = 0;
    const store = new MemoryReplayStore(2, () => now);
    await store.claim('a', 1_000);
    await store.claim('b', 60_000);
    await expect(store.claim('c', 60_000)).rejects.toThrow(ReplayStoreFull);
    expect(await store.seen('a')).toBe(true);
    now = 1_000;
    expect(await store.claim('c', 60_000)).toBe(true);
    expect(await store.seen('b')).toBe(true);
    expect(await store.seen('a')).toBe(false);
  });

  it('is never durable, so durable-nonce payments are refused without Redis', () => {
    expect(new MemoryReplayStore().durable()).toBe(false);
  });
});
