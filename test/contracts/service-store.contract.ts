import { randomUUID } from 'node:crypto';
import type { ServiceEntry } from '../../src/modules/tools/domain/service-entry';
import { pricingLabel } from '../../src/modules/tools/domain/service-price';
import type { ServiceStore } from '../../src/modules/tools/ports/service-store';

const T0 = Date.parse('2026-11-25T10:00:00.000Z');

/** The instant `seconds` after a fixed start, so tests choose the order of registration. */
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);

/** A fresh id, so tests sharing one store never collide. */
const freshId = (prefix = 'svc'): string => `${prefix}-${randomUUID()}`;

/** A runtime entry as the admin route registers it: external, source `api`. */
export function serviceEntry(overrides: Partial<ServiceEntry> = {}): ServiceEntry {
  const priceAtomic = overrides.priceAtomic === undefined ? 20_000n : overrides.priceAtomic;
  return {
    id: freshId(),
    name: 'Weather',
    category: 'data',
    endpoint: 'https://weather.example.com/v1/now',
    x402Enabled: true,
    internal: false,
    description: 'Current weather for a place.',
    pricing: overrides.pricing ?? pricingLabel(priceAtomic),
    source: 'api',
    priceAtomic,
    createdAt: at(0),
    ...overrides,
  };
}

/** The behaviour every ServiceStore adapter must have; each adapter's spec runs it against its own. */
export function serviceStoreContract(open: () => Promise<{ store: ServiceStore; close: () => Promise<void> }>): void {
  let store: ServiceStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await open());
  });
  afterAll(() => close());

  /** The stored entries among `ids`, in the store's order. */
  async function listed(ids: string[]): Promise<ServiceEntry[]> {
    return (await store.list()).filter((entry) => ids.includes(entry.id));
  }

  it('lists an added entry back with every field', async () => {
    const entry = serviceEntry({ name: 'Météo ☀', category: 'weather', x402Enabled: false, description: 'Line one,\n"quoted" line two.', priceAtomic: 12_345n, pricing: pricingLabel(12_345n) });
    expect(await store.add(entry)).toBe(true);
    expect(await listed([entry.id])).toEqual([entry]);
  });

  it('finds an added entry by its id, and nothing for an id never added', async () => {
    const entry = serviceEntry({ priceAtomic: 2_000n, pricing: pricingLabel(2_000n) });
    expect(await store.add(entry)).toBe(true);
    expect(await store.find(entry.id)).toEqual(entry);
    expect(await store.find(`${entry.id}-absent`)).toBeNull();
  });

  it('keeps a null description and a null price (unpriced)', async () => {
    const entry = serviceEntry({ description: null, priceAtomic: null, pricing: 'not priced' });
    expect(await store.add(entry)).toBe(true);
    expect(await listed([entry.id])).toEqual([entry]);
  });

  it('keeps prices exactly: zero and values beyond floating-point precision', async () => {
    const zero = serviceEntry({ priceAtomic: 0n, pricing: pricingLabel(0n), createdAt: at(1) });
    const large = serviceEntry({ priceAtomic: 123_456_789_012_345_678n, pricing: pricingLabel(123_456_789_012_345_678n), createdAt: at(2) });
    expect(await store.add(zero)).toBe(true);
    expect(await store.add(large)).toBe(true);
    const stored = await listed([zero.id, large.id]);
    expect(stored.map((entry) => entry.priceAtomic)).toEqual([0n, 123_456_789_012_345_678n]);
    expect(stored).toEqual([zero, large]);
  });

  it('refuses a taken id, keeping the first entry untouched', async () => {
    const first = serviceEntry({ name: 'First' });
    expect(await store.add(first)).toBe(true);
    expect(await store.add({ ...first, name: 'Second', endpoint: 'https://other.example.com/', priceAtomic: 1n, pricing: pricingLabel(1n), createdAt: at(5) })).toBe(false);
    expect(await listed([first.id])).toEqual([first]);
  });

  it('lists oldest first, ties in id order, whatever the order of adding', async () => {
    const late = serviceEntry({ id: freshId('c'), createdAt: at(30) });
    const early = serviceEntry({ id: freshId('b'), createdAt: at(10) });
    // Hyphens are ignored at first by some locales' collation, so 'a-b...' would sort after 'ab...' there; ids compare byte by byte.
    const tieB = serviceEntry({ id: `ab-${randomUUID()}`, createdAt: at(20) });
    const tieA = serviceEntry({ id: `a-${randomUUID()}`, createdAt: at(20) });
    for (const entry of [late, tieB, early, tieA]) expect(await store.add(entry)).toBe(true);
    expect((await listed([late.id, early.id, tieA.id, tieB.id])).map((entry) => entry.id)).toEqual([early.id, tieA.id, tieB.id, late.id]);
  });

  it('stamps an entry registered without a time with the time of adding', async () => {
    const before = Date.now();
    const entry = serviceEntry({ createdAt: null });
    expect(await store.add(entry)).toBe(true);
    const [stored] = await listed([entry.id]);
    expect(stored.createdAt).toBeInstanceOf(Date);
    // A second of slack: a server's clock is not this process's.
    expect(stored.createdAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(stored.createdAt?.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect({ ...stored, createdAt: null }).toEqual(entry);
  });

  it('lets exactly one of concurrent adds of the same id win', async () => {
    const id = freshId();
    const contenders = Array.from({ length: 8 }, (_, i) => serviceEntry({ id, name: `Contender ${i}` }));
    const results = await Promise.all(contenders.map((entry) => store.add(entry)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = contenders[results.indexOf(true)];
    expect(await listed([id])).toEqual([winner]);
  });
}
