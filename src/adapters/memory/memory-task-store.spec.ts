import { a2aTask, taskStoreContract } from '../../../test/contracts/task-store.contract';
import { MemoryTaskLocks, MemoryTaskStore } from './memory-task-store';

describe('MemoryTaskStore and MemoryTaskLocks', () => {
  taskStoreContract(async () => ({ store: new MemoryTaskStore(), locks: new MemoryTaskLocks(), close: async () => undefined }));

  describe('when full', () => {
    let now = 0;
    const clock = () => now;

    beforeEach(() => {
      now = 1_000;
    });

    it('evicts expired tasks before live ones', async () => {
      const store = new MemoryTaskStore(2, clock);
      const [short, long, next] = [a2aTask(), a2aTask(), a2aTask()];
      await store.create(short, 100);
      await store.create(long, 60_000);
      now += 200;
      await store.create(next, 60_000);
      expect(await store.get(long.id)).toEqual(long);
      expect(await store.get(next.id)).toEqual(next);
    });

    it('evicts the task unchanged the longest when none has expired', async () => {
      const store = new MemoryTaskStore(2, clock);
      const [a, b, c] = [a2aTask(), a2aTask(), a2aTask()];
      await store.create(a, 60_000);
      await store.create(b, 60_000);
      now += 10;
      // A state change makes `a` the most recent.
      expect(await store.replace({ ...a, state: 'working' }, 'input-required', 60_000)).toBe(true);
      await store.create(c, 60_000);
      expect(await store.get(b.id)).toBeNull();
      expect((await store.get(a.id))?.state).toBe('working');
      expect(await store.get(c.id)).toEqual(c);
    });

    it('refuses a lock rather than evicting one that is held', async () => {
      const locks = new MemoryTaskLocks(1, clock);
      const held = await locks.acquire('a', 60_000);
      expect(await locks.acquire('b', 60_000)).toBeNull();
      await locks.release('a', held!);
      expect(await locks.acquire('b', 60_000)).not.toBeNull();
    });

    it('takes a lock in the place of one that has lapsed', async () => {
      const locks = new MemoryTaskLocks(1, clock);
      await locks.acquire('a', 100);
      now += 200;
      expect(await locks.acquire('b', 60_000)).not.toBeNull();
    });
  });
});
