import { randomUUID } from 'node:crypto';
import type { ReplayStore } from '../../src/modules/payments/ports/replay-store';

/** The behaviour every ReplayStore adapter must have. */
export function replayStoreContract(open: () => Promise<{ store: ReplayStore; close: () => Promise<void> }>): void {
  let store: ReplayStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await open());
  });
  afterAll(() => close());

  it('claims a signature once; later look-ups and claims see it', async () => {
    const signature = randomUUID();
    expect(await store.seen(signature)).toBe(false);
    expect(await store.claim(signature, 60_000)).toBe(true);
    expect(await store.seen(signature)).toBe(true);
    expect(await store.claim(signature, 60_000)).toBe(false);
  });

  it('lets exactly one of many parallel claims win', async () => {
    const signature = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => store.claim(signature, 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('holds a claim longer, or takes a lapsed one again, but never shortens it', async () => {
    const held = randomUUID();
    await store.claim(held, 100);
    await store.hold(held, 60_000);
    const lapsed = randomUUID();
    await store.claim(lapsed, 50);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await store.seen(held)).toBe(true);
    expect(await store.seen(lapsed)).toBe(false);
    await store.hold(lapsed, 60_000);
    expect(await store.seen(lapsed)).toBe(true);
    const long = randomUUID();
    await store.claim(long, 60_000);
    await store.hold(long, 50);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await store.seen(long)).toBe(true);
  });

  it('gives a released claim back', async () => {
    const signature = randomUUID();
    await store.claim(signature, 60_000);
    await store.release(signature);
    expect(await store.seen(signature)).toBe(false);
    expect(await store.claim(signature, 60_000)).toBe(true);
  });

  it('forgets a claim after its TTL', async () => {
    const signature = randomUUID();
    await store.claim(signature, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await store.claim(signature, 200)).toBe(true);
  });
}
