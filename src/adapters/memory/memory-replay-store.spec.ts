import { replayStoreContract } from '../../../test/contracts/replay-store.contract';
import { MemoryReplayStore } from './memory-replay-store';

describe('MemoryReplayStore', () => {
  replayStoreContract(async () => ({ store: new MemoryReplayStore(), close: async () => undefined }));

  it('is bounded: past its capacity the oldest claim goes first', async () => {
    const store = new MemoryReplayStore(2);
    for (const signature of ['a', 'b', 'c']) await store.claim(signature, 60_000);
    expect(await store.seen('a')).toBe(false);
    expect(await store.seen('b')).toBe(true);
    expect(await store.seen('c')).toBe(true);
  });

  it('is never durable, so durable-nonce payments are refused without Redis', () => {
    expect(new MemoryReplayStore().durable()).toBe(false);
  });
});
