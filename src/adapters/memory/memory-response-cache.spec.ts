import { completion, responseCacheContract } from '../../../test/contracts/response-cache.contract';
import { MemoryResponseCache } from './memory-response-cache';

describe('MemoryResponseCache', () => {
  responseCacheContract(async () => ({ cache: new MemoryResponseCache(), close: async () => undefined }));

  it('evicts the least recently used entry past its capacity', async () => {
    const cache = new MemoryResponseCache(2);
    await cache.set('a', completion('a'), 60);
    await cache.set('b', completion('b'), 60);
    await cache.get('a');
    await cache.set('c', completion('c'), 60);
    expect(await cache.get('b')).toBeNull();
    expect(await cache.get('a')).not.toBeNull();
    expect(await cache.get('c')).not.toBeNull();
  });
});

describe('MemoryResponseCache, bytes', () => {
  it('evicts the least recently used answers once their JSON passes the byte budget, and never keeps an answer larger than it', async () => {
    const size = Buffer.byteLength(JSON.stringify(completion('a')));
    const cache = new MemoryResponseCache(100, 2 * size + 1);
    await cache.set('a', completion('a'), 60);
    await cache.set('b', completion('b'), 60);
    await cache.set('c', completion('c'), 60);
    await cache.set('huge', completion('x'.repeat(3 * size)), 60);

    expect(await cache.get('a')).toBeNull();
    expect(await cache.get('b')).not.toBeNull();
    expect(await cache.get('c')).not.toBeNull();
    expect(await cache.get('huge')).toBeNull();
  });
});
