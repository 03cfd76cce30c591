import { randomUUID } from 'node:crypto';
import type { RateLimitStore } from '../../src/modules/rate-limits/ports/rate-limit-store';

/** The behaviour every RateLimitStore adapter must have; each adapter's spec runs it against its own. */
export function rateLimitStoreContract(open: () => Promise<{ store: RateLimitStore; close: () => Promise<void> }>): void {
  let store: RateLimitStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await open());
  });
  afterAll(() => close());

  it('allows up to the limit in a window, then refuses with nothing remaining', async () => {
    const key = randomUUID();
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await store.hit(key, 3, 60_000));
    expect(seen.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(seen.every((d) => d.limit === 3 && d.resetSecs >= 59 && d.resetSecs <= 60)).toBe(true);
  });

  it('previews what a hit would decide without counting it', async () => {
    const key = randomUUID();
    expect((await store.preview(key, 2, 60_000)).allowed).toBe(true);
    await store.hit(key, 2, 60_000);
    expect((await store.preview(key, 2, 60_000)).allowed).toBe(true);
    await store.hit(key, 2, 60_000);
    const full = await store.preview(key, 2, 60_000);
    expect([full.allowed, full.remaining, full.resetSecs >= 59]).toEqual([false, 0, true]);
    expect((await store.preview(randomUUID(), 2, 60_000)).allowed).toBe(true);
  });

  it('counts a weight when given one, and gives some back within the window, never below zero', async () => {
    const key = randomUUID();
    expect(await store.hit(key, 1_000, 60_000, 600)).toMatchObject({ allowed: true, remaining: 400 });
    expect(await store.hit(key, 1_000, 60_000, 500)).toMatchObject({ allowed: false, remaining: 0 });
    await store.giveBack(key, 500);
    expect(await store.hit(key, 1_000, 60_000, 300)).toMatchObject({ allowed: true, remaining: 100 });
    await store.giveBack(key, 5_000);
    expect(await store.hit(key, 1_000, 60_000, 1_000)).toMatchObject({ allowed: true, remaining: 0 });
    const unseen = randomUUID();
    await store.giveBack(unseen, 10);
    expect(await store.hit(unseen, 1, 60_000)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('keeps keys apart', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await store.hit(a, 1, 60_000);
    expect((await store.hit(a, 1, 60_000)).allowed).toBe(false);
    expect((await store.hit(b, 1, 60_000)).allowed).toBe(true);
  });

  it('starts a new window when the old one ends', async () => {
    const key = randomUUID();
    expect((await store.hit(key, 1, 300)).allowed).toBe(true);
    expect((await store.hit(key, 1, 300)).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await store.hit(key, 1, 300)).allowed).toBe(true);
  });

  it('never lets concurrent hits overshoot the limit', async () => {
    const key = randomUUID();
    const decisions = await Promise.all(Array.from({ length: 50 }, () => store.hit(key, 10, 60_000)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
  });
}
