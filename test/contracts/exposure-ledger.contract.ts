import { randomUUID } from 'node:crypto';
import type { ExposureLedger } from '../../src/modules/payments/ports/exposure-ledger';

const TTL = 60_000;

/** The behaviour every ExposureLedger adapter must have. */
export function exposureLedgerContract(open: () => Promise<{ ledger: ExposureLedger; close: () => Promise<void> }>): void {
  let ledger: ExposureLedger;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ ledger, close } = await open());
  });
  afterAll(() => close());

  const debit = (source: string, amount: bigint) => ({ source, id: randomUUID(), amount });

  it('admits debits while they fit in the balance, then refuses; removing one makes room', async () => {
    const source = randomUUID();
    const first = debit(source, 40n);
    expect(await ledger.admit(first, 100n, 0, TTL)).toBe(true);
    expect(await ledger.admit(debit(source, 60n), 100n, 0, TTL)).toBe(true);
    expect(await ledger.admit(debit(source, 1n), 100n, 0, TTL)).toBe(false);
    await ledger.remove(source, first.id);
    expect(await ledger.admit(debit(source, 40n), 100n, 0, TTL)).toBe(true);
  });

  it('refuses a single debit above the balance, and keeps sources apart', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    expect(await ledger.admit(debit(a, 101n), 100n, 0, TTL)).toBe(false);
    expect(await ledger.admit(debit(a, 100n), 100n, 0, TTL)).toBe(true);
    expect(await ledger.admit(debit(b, 100n), 100n, 0, TTL)).toBe(true);
  });

  it('counts a landed debit against balances read before it landed, not after', async () => {
    const source = randomUUID();
    const landed = debit(source, 70n);
    const readBefore = await ledger.version(source);
    expect(await ledger.admit(landed, 100n, readBefore, TTL)).toBe(true);
    await ledger.landed(source, landed.id);
    const readAfter = await ledger.version(source);
    expect(readAfter).toBeGreaterThan(readBefore);
    // Read before the landing, the balance (100) still includes the 70: they are counted.
    expect(await ledger.admit(debit(source, 40n), 100n, readBefore, TTL)).toBe(false);
    // Read after it, the balance (30) no longer includes them: not counted twice.
    expect(await ledger.admit(debit(source, 30n), 30n, readAfter, TTL)).toBe(true);
  });

  it('lets a debit lapse after its time to live', async () => {
    const source = randomUUID();
    expect(await ledger.admit(debit(source, 100n), 100n, 0, 50)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await ledger.admit(debit(source, 100n), 100n, 0, TTL)).toBe(true);
  });

  it('never lets concurrent admissions overshoot the balance', async () => {
    const source = randomUUID();
    const results = await Promise.all(Array.from({ length: 30 }, () => ledger.admit(debit(source, 10n), 95n, 0, TTL)));
    expect(results.filter(Boolean)).toHaveLength(9);
  });

  it('handles amounts in the billions of USDC exactly', async () => {
    const source = randomUUID();
    const balance = 9_000_000_000_000_000n;
    expect(await ledger.admit(debit(source, balance - 1n), balance, 0, TTL)).toBe(true);
    expect(await ledger.admit(debit(source, 2n), balance, 0, TTL)).toBe(false);
    expect(await ledger.admit(debit(source, 1n), balance, 0, TTL)).toBe(true);
  });

  it('counts a debit still in flight against every read, however recent, until it lands or is removed', async () => {
    const source = randomUUID();
    const inFlight = debit(source, 60n);
    const other = debit(source, 10n);
    expect(await ledger.admit(inFlight, 100n, await ledger.version(source), TTL)).toBe(true);
    expect(await ledger.admit(other, 100n, await ledger.version(source), TTL)).toBe(true);
    await ledger.landed(source, other.id);
    // No balance read includes a debit that has not landed, whatever the version.
    expect(await ledger.admit(debit(source, 41n), 100n, await ledger.version(source), TTL)).toBe(false);
    // Landed with an error: it never moved the balance, so it is removed, not landed.
    await ledger.remove(source, inFlight.id);
    expect(await ledger.admit(debit(source, 90n), 90n, await ledger.version(source), TTL)).toBe(true);
  });
}
