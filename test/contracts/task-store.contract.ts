import { newTaskId, type A2ATaskRecord } from '../../src/modules/a2a/domain/a2a-task';
import type { TaskLocks, TaskStore } from '../../src/modules/a2a/ports/task-store';

/** A quoted task as message/send stores it: input-required with its offer, nothing paid yet. */
export function a2aTask(overrides: Partial<A2ATaskRecord> = {}): A2ATaskRecord {
  return {
    id: newTaskId(),
    contextId: 'ctx-' + newTaskId(),
    state: 'input-required',
    request: { model: 'auto', text: 'What is 2 + 2?', maxTokens: 256 },
    offer: {
      paymentRequired: { x402_version: 2, accepts: [{ scheme: 'exact', network: 'solana', amount: '1050', asset: 'mint', pay_to: 'wallet' }] },
      amountAtomic: '1050',
    },
    receipts: [],
    output: null,
    failure: null,
    updatedAt: 1_700_000_000_000,
    ...overrides,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The behaviour every TaskStore and TaskLocks adapter must have; each adapter's spec runs it against its own. */
export function taskStoreContract(open: () => Promise<{ store: TaskStore; locks: TaskLocks; close: () => Promise<void> }>): void {
  let store: TaskStore;
  let locks: TaskLocks;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, locks, close } = await open());
  });
  afterAll(() => close());

  describe('tasks', () => {
    it('gives back a created task as stored', async () => {
      const task = a2aTask({ receipts: [{ tx_signature: 'sig', receipt: '/v1/receipts/r' }, { tx_signature: 'sig2' }] });
      await store.create(task, 60_000);
      expect(await store.get(task.id)).toEqual(task);
    });

    it('has nothing for an unknown id', async () => {
      expect(await store.get(newTaskId())).toBeNull();
    });

    it('is not changed by editing the record given to create or returned by get', async () => {
      const task = a2aTask();
      await store.create(task, 60_000);
      task.state = 'working';
      const got = await store.get(task.id);
      got!.receipts.push({ tx_signature: 'x' });
      expect(await store.get(task.id)).toEqual({ ...task, state: 'input-required' });
    });

    it('refuses to create a task whose id is already stored, keeping the first', async () => {
      const task = a2aTask();
      await store.create(task, 60_000);
      await expect(store.create({ ...task, request: { ...task.request, text: 'other' } }, 60_000)).rejects.toThrow();
      expect(await store.get(task.id)).toEqual(task);
    });

    it('forgets a task once its time to live has passed', async () => {
      const task = a2aTask();
      await store.create(task, 200);
      expect(await store.get(task.id)).not.toBeNull();
      await sleep(300);
      expect(await store.get(task.id)).toBeNull();
    });

    it('replaces a task still in the expected state, and the replacement is what get returns', async () => {
      const task = a2aTask();
      await store.create(task, 60_000);
      const working = { ...task, state: 'working' as const, updatedAt: task.updatedAt + 1 };
      expect(await store.replace(working, 'input-required', 60_000)).toBe(true);
      expect(await store.get(task.id)).toEqual(working);
      const completed = { ...working, state: 'completed' as const, output: '4', receipts: [{ tx_signature: 'sig', receipt: '/v1/receipts/r' }] };
      expect(await store.replace(completed, 'working', 60_000)).toBe(true);
      expect(await store.get(task.id)).toEqual(completed);
    });

    it('refreshes the time to live on a replace', async () => {
      const task = a2aTask();
      await store.create(task, 300);
      await sleep(150);
      expect(await store.replace({ ...task, state: 'working' }, 'input-required', 600)).toBe(true);
      await sleep(300); // past the first TTL
      expect((await store.get(task.id))?.state).toBe('working');
      await sleep(450); // past the refreshed one
      expect(await store.get(task.id)).toBeNull();
    });

    it('refuses a replace from a state the task is not in, leaving it unchanged', async () => {
      const task = a2aTask();
      await store.create(task, 60_000);
      expect(await store.replace({ ...task, state: 'completed', output: 'x' }, 'working', 60_000)).toBe(false);
      expect(await store.get(task.id)).toEqual(task);
    });

    it('neither replaces nor recreates an unknown or expired task', async () => {
      const unknown = a2aTask();
      expect(await store.replace({ ...unknown, state: 'working' }, 'input-required', 60_000)).toBe(false);
      expect(await store.get(unknown.id)).toBeNull();
      const expired = a2aTask();
      await store.create(expired, 100);
      await sleep(200);
      expect(await store.replace({ ...expired, state: 'working' }, 'input-required', 60_000)).toBe(false);
      expect(await store.get(expired.id)).toBeNull();
    });

    it('lets exactly one of concurrent replaces from the same state win', async () => {
      const task = a2aTask();
      await store.create(task, 60_000);
      const rivals = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? { ...task, state: 'working' as const, updatedAt: i } : { ...task, state: 'canceled' as const, updatedAt: i }));
      const results = await Promise.all(rivals.map((rival) => store.replace(rival, 'input-required', 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.get(task.id)).toEqual(rivals[results.indexOf(true)]);
    });
  });

  describe('settlement locks', () => {
    it('are exclusive per task until released', async () => {
      const [a, b] = [newTaskId(), newTaskId()];
      const token = await locks.acquire(a, 60_000);
      expect(token).toEqual(expect.any(String));
      expect(await locks.acquire(a, 60_000)).toBeNull();
      expect(await locks.acquire(b, 60_000)).toEqual(expect.any(String));
      await locks.release(a, token!);
      const again = await locks.acquire(a, 60_000);
      expect(again).toEqual(expect.any(String));
      expect(again).not.toBe(token);
    });

    it('hands only one of concurrent acquirers the lock', async () => {
      const id = newTaskId();
      const tokens = await Promise.all(Array.from({ length: 10 }, () => locks.acquire(id, 60_000)));
      expect(tokens.filter((token) => token !== null)).toHaveLength(1);
    });

    it('are released by their own token only', async () => {
      const id = newTaskId();
      const token = await locks.acquire(id, 60_000);
      await locks.release(id, 'not-the-token');
      expect(await locks.acquire(id, 60_000)).toBeNull();
      await locks.release(id, token!);
      expect(await locks.acquire(id, 60_000)).not.toBeNull();
    });

    it('lapse after their time to live, and a lapsed holder cannot free its successor', async () => {
      const id = newTaskId();
      const first = await locks.acquire(id, 200);
      await sleep(300);
      const second = await locks.acquire(id, 60_000);
      expect(second).not.toBeNull();
      await locks.release(id, first!);
      expect(await locks.acquire(id, 60_000)).toBeNull();
      await locks.release(id, second!);
    });

    it('accept a release of a lock nobody holds', async () => {
      await expect(locks.release(newTaskId(), 'token')).resolves.toBeUndefined();
    });
  });
}
