import { keptAnswer, redeliveryStoreContract } from '../../../test/contracts/redelivery-store.contract';
import { MemoryRedeliveryStore } from './memory-redelivery-store';

describe('MemoryRedeliveryStore', () => {
  redeliveryStoreContract(async () => ({ store: new MemoryRedeliveryStore(), close: async () => undefined }));

  it('stays within its byte budget, evicting the oldest answers first', async () => {
    const one = JSON.stringify(keptAnswer('x'.repeat(1_000))).length;
    const store = new MemoryRedeliveryStore(one * 2 + 10);
    await store.keep('a', keptAnswer('a'.repeat(1_000)), 60_000);
    await store.keep('b', keptAnswer('b'.repeat(1_000)), 60_000);
    await store.keep('c', keptAnswer('c'.repeat(1_000)), 60_000);
    expect(await store.find('a')).toBeNull();
    expect(await store.find('b')).not.toBeNull();
    expect(await store.find('c')).not.toBeNull();
  });

  it('refuses an answer larger than the whole budget rather than emptying itself for it', async () => {
    const store = new MemoryRedeliveryStore(2_000);
    await store.keep('small', keptAnswer('s'), 60_000);
    await store.keep('huge', keptAnswer('h'.repeat(5_000)), 60_000);
    expect(await store.find('huge')).toBeNull();
    expect(await store.find('small')).not.toBeNull();
  });
});
