import { MemoryTaskStore } from './memory-task-store';
import type { A2ATaskRecord } from '../../modules/a2a/domain/a2a-task';
import { a2aTask } from '../../../test/contracts/task-store.contract';

/**
 * The memory task store when full (100,000 tasks by default). Unpaid quotes cost an attacker
 * nothing but its paid-rate window (per client address), so a flood of them must never push out a
 * task somebody has paid for: a `working` task (its payment leg would end with nowhere to write the
 * answer: -32603 after the money moved) nor a `completed` one (the answer bought, kept for tasks/get).
 */
describe('MemoryTaskStore under a flood of unpaid quotes', () => {
  const TTL = 600_000;
  let now = 1_000;
  const clock = () => now;

  const flood = async (store: MemoryTaskStore, count: number) => {
    for (let i = 0; i < count; i++) {
      now += 1;
      await store.create(a2aTask(), TTL);
    }
  };

  it('keeps a working (paid, being served) task when newer unpaid quotes fill the store', async () => {
    const store = new MemoryTaskStore(3, clock);
    const paid: A2ATaskRecord = a2aTask();
    await store.create(paid, TTL);
    const working = { ...paid, state: 'working' as const };
    expect(await store.replace(working, 'input-required', TTL)).toBe(true);

    await flood(store, 3);

    expect(await store.get(paid.id)).toEqual(working);
    // And the payment leg's final write still lands.
    expect(await store.replace({ ...working, state: 'completed', output: 'the answer' }, 'working', TTL)).toBe(true);
  });

  it('keeps a completed task (a paid answer) when newer unpaid quotes fill the store', async () => {
    const store = new MemoryTaskStore(3, clock);
    const task = a2aTask();
    await store.create(task, TTL);
    await store.replace({ ...task, state: 'working' }, 'input-required', TTL);
    const completed: A2ATaskRecord = { ...task, state: 'completed', output: 'the answer', receipts: [{ tx_signature: 'sig' }] };
    await store.replace(completed, 'working', TTL);

    await flood(store, 3);

    expect(await store.get(task.id)).toEqual(completed);
  });
});
