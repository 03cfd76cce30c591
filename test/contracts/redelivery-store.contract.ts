import { randomUUID } from 'node:crypto';
import type { KeptAnswer, RedeliveryStore } from '../../src/modules/chat/ports/redelivery-store';
import { completion } from './response-cache.contract';

export function keptAnswer(text = 'kept answer'): KeptAnswer {
  return { fingerprint: randomUUID(), completion: completion(text), whole: true, receiptPath: `/v1/receipts/${randomUUID()}`, landing: null };
}

/** The behaviour every RedeliveryStore adapter must have; each adapter's spec runs it against its own. */
export function redeliveryStoreContract(open: () => Promise<{ store: RedeliveryStore; close: () => Promise<void> }>): void {
  let store: RedeliveryStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await open());
  });
  afterAll(() => close());

  it('finds a kept answer under its replay key, as kept', async () => {
    const key = randomUUID();
    const answer = {
      ...keptAnswer(),
      whole: false,
      receiptPath: null,
      landing: { signature: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW', required: true },
    };
    await store.keep(key, answer, 60_000);
    expect(await store.find(key)).toEqual(answer);
  });

  it('has nothing for an unknown key', async () => {
    expect(await store.find(randomUUID())).toBeNull();
  });

  it('forgets an answer once its time to live has passed', async () => {
    const key = randomUUID();
    await store.keep(key, keptAnswer(), 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await store.find(key)).toBeNull();
  });

  it('keeps the latest answer for a key', async () => {
    const key = randomUUID();
    await store.keep(key, keptAnswer('first'), 60_000);
    const second = keptAnswer('second');
    await store.keep(key, second, 60_000);
    expect(await store.find(key)).toEqual(second);
  });
}
