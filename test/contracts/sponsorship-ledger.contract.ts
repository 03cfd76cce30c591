import { randomUUID } from 'node:crypto';
import type { SponsorshipBound, SponsorshipCharge, SponsorshipLedger } from '../../src/modules/payments/ports/sponsorship-ledger';

const WINDOW_MS = 3_600_000;

/** The behaviour every SponsorshipLedger adapter must have. */
export function sponsorshipLedgerContract(open: () => Promise<{ ledger: SponsorshipLedger; close: () => Promise<void> }>): void {
  let ledger: SponsorshipLedger;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ ledger, close } = await open());
  });
  afterAll(() => close());

  // Windows far from the clock's, so no other test shares a counter.
  const window = () => 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
  const bounds = (limits: bigint[]) => limits.map((limit) => ({ key: randomUUID(), limit }));
  /** The outcome of a charge, its refund left out. */
  const charge = async (w: number, charged: SponsorshipBound[], lamports: bigint) => {
    const result = await ledger.charge(w, charged, lamports, WINDOW_MS);
    return result.charged ? { charged: true, totals: result.totals } : result;
  };
  const refundOf = (result: SponsorshipCharge) => {
    if (!result.charged) throw new Error('nothing was charged');
    return result.refund();
  };

  it('charges every bound or none, naming the first that would pass its limit', async () => {
    const w = window();
    const [global, wallet] = bounds([100n, 30n]);
    expect(await charge(w, [global, wallet], 20n)).toEqual({ charged: true, totals: [20n, 20n] });
    expect(await charge(w, [global, wallet], 20n)).toEqual({ charged: false, refusedBy: 1, totals: [20n, 20n] });
    expect(await ledger.total(w, global.key)).toBe(20n);
    const [other] = bounds([100n]);
    expect(await charge(w, [global, other], 80n)).toEqual({ charged: true, totals: [100n, 80n] });
    expect(await charge(w, [global, other], 1n)).toEqual({ charged: false, refusedBy: 0, totals: [100n, 80n] });
  });

  it('refunds a charge to every counter it was charged to', async () => {
    const w = window();
    const [bound, other] = bounds([100n, 100n]);
    const first = await ledger.charge(w, [bound], 60n, WINDOW_MS);
    await ledger.charge(w, [bound, other], 25n, WINDOW_MS);
    await refundOf(first);
    expect(await ledger.total(w, bound.key)).toBe(25n);
    expect(await ledger.total(w, other.key)).toBe(25n);
  });

  it('counts each window apart', async () => {
    const w = window();
    const [bound] = bounds([50n]);
    await ledger.charge(w, [bound], 50n, WINDOW_MS);
    expect((await ledger.charge(w, [bound], 1n, WINDOW_MS)).charged).toBe(false);
    const next = await ledger.charge(w + 1, [bound], 50n, WINDOW_MS);
    expect(next).toEqual({ charged: true, totals: [50n], refund: expect.any(Function) });
    await refundOf(next);
    expect(await ledger.total(w, bound.key)).toBe(50n);
    expect(await ledger.total(w + 1, bound.key)).toBe(0n);
  });

  it('counts totals of 100,000 SOL and more exactly', async () => {
    const w = window();
    const [bound] = bounds([10n ** 15n]);
    expect(await charge(w, [bound], 123_456_789_012_345n)).toEqual({ charged: true, totals: [123_456_789_012_345n] });
    expect(await charge(w, [bound], 10n ** 15n)).toEqual({ charged: false, refusedBy: 0, totals: [123_456_789_012_345n] });
  });

  it('never lets concurrent charges overshoot a limit', async () => {
    const w = window();
    const [bound] = bounds([10_000n]);
    const results = await Promise.all(Array.from({ length: 40 }, () => ledger.charge(w, [bound], 1_001n, WINDOW_MS)));
    expect(results.filter((result) => result.charged)).toHaveLength(9);
    expect(await ledger.total(w, bound.key)).toBe(9_009n);
  });

  it('charges nothing to the bounds before one that refuses', async () => {
    const w = window();
    const [global, wallet, client] = bounds([1_000n, 500n, 300n]);
    expect(await charge(w, [global, wallet, client], 200n)).toEqual({ charged: true, totals: [200n, 200n, 200n] });
    expect(await charge(w, [global, wallet, client], 200n)).toEqual({ charged: false, refusedBy: 2, totals: [200n, 200n, 200n] });
    expect(await ledger.total(w, global.key)).toBe(200n);
    expect(await ledger.total(w, wallet.key)).toBe(200n);
  });

  it('refunds one charge and keeps the others counted', async () => {
    const w = window();
    const [bound] = bounds([100n]);
    const first = await ledger.charge(w, [bound], 40n, WINDOW_MS);
    await ledger.charge(w, [bound], 30n, WINDOW_MS);
    await refundOf(first);
    expect(await ledger.total(w, bound.key)).toBe(30n);
    expect((await ledger.charge(w, [bound], 71n, WINDOW_MS)).charged).toBe(false);
    expect(await charge(w, [bound], 70n)).toEqual({ charged: true, totals: [100n] });
  });

  it('never lets concurrent charges through different wallets overshoot the shared bound, nor count the refused ones', async () => {
    const w = window();
    const [global] = bounds([10_000n]);
    const wallets = bounds(Array.from({ length: 40 }, () => 5_000n));
    const results = await Promise.all(wallets.map((wallet) => ledger.charge(w, [global, wallet], 1_001n, WINDOW_MS)));
    expect(results.filter((result) => result.charged)).toHaveLength(9);
    expect(await ledger.total(w, global.key)).toBe(9_009n);
    const walletTotals = await Promise.all(wallets.map((wallet) => ledger.total(w, wallet.key)));
    expect(walletTotals.reduce((sum, total) => sum + total, 0n)).toBe(9_009n);
  });
}
