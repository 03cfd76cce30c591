import { randomUUID } from 'node:crypto';
import type { EscrowClaim, EscrowClaims, NewEscrowClaim } from '../../src/modules/payments/ports/escrow-claims';
import type { ReceiptStore } from '../../src/modules/payments/ports/receipt-store';
import { escrowReceipt } from './receipt-store.contract';

/** A claim as the escrow flow opens it when its answer begins (its receipt is written by `opened` below). */
export function newClaim(overrides: Partial<NewEscrowClaim> = {}): NewEscrowClaim {
  return {
    receiptId: randomUUID(),
    escrow: 'Esc1111111111111111111111111111111111111111',
    agent: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
    serviceId: Buffer.alloc(32, 7).toString('base64'),
    depositAtomic: 21_505n,
    claimAtomic: 12_000n,
    expirySlot: 345_678_901n,
    ...overrides,
  };
}

const T0 = new Date('2026-11-22T10:00:00.000Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const [A, B] = ['instance-a', 'instance-b'];

/** What an instance opens: the queue, and `other`, the same queue as another instance reaches it (its own connections where the adapter has them), and the receipts beside them. */
export interface OpenedClaims {
  claims: EscrowClaims;
  other: EscrowClaims;
  receipts: ReceiptStore;
  close: () => Promise<void>;
}

/** The behaviour every EscrowClaims adapter must have; each test gets an empty queue of its own. */
export function escrowClaimsContract(open: () => Promise<OpenedClaims>): void {
  let claims: EscrowClaims;
  let other: EscrowClaims;
  let receipts: ReceiptStore;
  let close: () => Promise<void> = async () => undefined;

  beforeEach(async () => {
    ({ claims, other, receipts, close } = await open());
  });
  afterEach(() => close());

  /** The pending escrow receipt a claim belongs to, created `secondsAgo` before now. */
  const receiptFor = async (claim: NewEscrowClaim, createdAt = new Date()): Promise<void> => {
    await receipts.create(escrowReceipt({ id: claim.receiptId, createdAt }));
  };

  /** Opens `claim` (its receipt written first), due at `dueAt`, and returns it as stored. */
  const opened = async (claim: NewEscrowClaim, dueAt: Date): Promise<EscrowClaim> => {
    await receiptFor(claim);
    expect(await claims.open(claim, dueAt)).toBe(true);
    const stored = await claims.findByReceipt(claim.receiptId);
    if (!stored) throw new Error('an opened claim is found by its receipt');
    return stored;
  };

  it('returns an opened claim by its receipt as written, pending and due when told, amounts and slot exact beyond 2^53', async () => {
    const claim = newClaim({ depositAtomic: 9_007_199_254_740_995n, claimAtomic: 9_007_199_254_740_993n, expirySlot: 9_223_372_036_854_775_807n });
    await receiptFor(claim);
    expect(await claims.open(claim, at(600))).toBe(true);
    expect(await claims.findByReceipt(claim.receiptId)).toEqual({
      ...claim,
      id: expect.any(String),
      status: 'pending',
      attempts: 0,
      dueAt: at(600),
      leaseUntil: null,
      leaseHolder: null,
      claimSignatures: [],
      claimSignature: null,
      lastError: null,
      createdAt: expect.any(Date),
    });
    expect(await claims.findByReceipt(randomUUID())).toBeNull();
  });

  it('opens one claim per receipt, and only while the receipt is pending', async () => {
    const claim = newClaim();
    const first = await opened(claim, T0);
    expect(await claims.open({ ...claim, claimAtomic: 1n, escrow: 'Other111111111111111111111111111111111111111' }, at(5))).toBe(false);
    expect(await claims.findByReceipt(claim.receiptId)).toEqual(first);

    const unknown = newClaim();
    expect(await claims.open(unknown, T0)).toBe(false);
    const ended = newClaim();
    await receiptFor(ended);
    await receipts.complete(ended.receiptId, { status: 'not_charged', amountChargedAtomic: 0n, settledAt: null });
    expect(await claims.open(ended, T0)).toBe(false);
    expect(await claims.findByReceipt(ended.receiptId)).toBeNull();
  });

  it('finalizes a claim never attempted: its amount, due now; once attempted it changes no more', async () => {
    const claim = newClaim();
    const { id } = await opened(claim, at(600));
    expect(await claims.finalize(claim.receiptId, 7_000n, at(1))).toBe(true);
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ claimAtomic: 7_000n, dueAt: at(1), status: 'pending' });
    expect(await claims.lease(at(1), A, at(30))).toMatchObject({ id });
    expect(await claims.finalize(claim.receiptId, 5_000n, at(2))).toBe(false);
    expect(await claims.recordAttempt(id, A, 'sig-1')).toBe(true);
    await claims.retry(id, A, at(40), 'rpc');
    expect(await claims.finalize(claim.receiptId, 5_000n, at(2))).toBe(false);
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ claimAtomic: 7_000n });
    expect(await claims.finalize(randomUUID(), 1n, T0)).toBe(false);
  });

  it('leases the due claims one at a time, earliest due first, in progress for their holder until the lease ends', async () => {
    const [a, b, c] = [newClaim(), newClaim(), newClaim()];
    await opened(b, at(1));
    await opened(c, at(2));
    await opened(a, at(0));
    const first = await claims.lease(at(10), A, at(70));
    expect(first).toMatchObject({ receiptId: a.receiptId, status: 'in_progress', leaseHolder: A, leaseUntil: at(70) });
    expect(await other.lease(at(10), B, at(70))).toMatchObject({ receiptId: b.receiptId, leaseHolder: B });
    expect(await claims.lease(at(10), A, at(70))).toMatchObject({ receiptId: c.receiptId });
    expect(await claims.lease(at(10), A, at(70))).toBeNull();
  });

  it('does not lease a claim before it is due', async () => {
    const claim = newClaim();
    await opened(claim, at(60));
    expect(await claims.lease(at(59), A, at(120))).toBeNull();
    expect(await claims.lease(at(60), A, at(120))).toMatchObject({ receiptId: claim.receiptId });
  });

  it('leases a claim again once its lease lapsed, and the lapsed holder can then move it no more', async () => {
    const claim = newClaim();
    await opened(claim, T0);
    const leased = await claims.lease(T0, A, at(30));
    if (!leased) throw new Error('leased');
    expect(await other.lease(at(29), B, at(90))).toBeNull();
    const again = await other.lease(at(30), B, at(90));
    expect(again).toEqual({ ...leased, leaseHolder: B, leaseUntil: at(90) });
    expect(await claims.renew(leased.id, A, at(200))).toBe(false);
    expect(await claims.recordAttempt(leased.id, A, 'stale')).toBe(false);
    expect(await claims.complete(leased.id, A, 'stale')).toBe(false);
    expect(await claims.fail(leased.id, A, 'stale')).toBe(false);
    await claims.retry(leased.id, A, at(40), 'stale');
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ status: 'in_progress', leaseHolder: B, leaseUntil: at(90), attempts: 0, claimSignatures: [] });
  });

  it('renews a lease for its holder, so it does not lapse while the holder works', async () => {
    const claim = newClaim();
    await opened(claim, T0);
    const leased = (await claims.lease(T0, A, at(30))) as EscrowClaim;
    expect(await claims.renew(leased.id, A, at(60))).toBe(true);
    expect(await other.lease(at(45), B, at(100))).toBeNull();
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ leaseUntil: at(60), leaseHolder: A });
  });

  it('never hands one claim to two instances leasing at once', async () => {
    const queued = Array.from({ length: 12 }, (_, i) => newClaim({ expirySlot: BigInt(i) }));
    for (const [i, claim] of queued.entries()) await opened(claim, at(i));
    const leaseAll = async (queue: EscrowClaims, holder: string): Promise<string[]> => {
      const ids: string[] = [];
      for (;;) {
        const claim = await queue.lease(at(100), holder, at(200));
        if (!claim) return ids;
        ids.push(claim.receiptId);
      }
    };
    const concurrent = await Promise.all([leaseAll(claims, A), leaseAll(other, B), leaseAll(claims, A), leaseAll(other, B)]);
    const ids = concurrent.flat();
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(queued.map((claim) => claim.receiptId).sort());
  });

  it('records every attempt before its send, oldest first, so whoever leases the claim next sees them all', async () => {
    const claim = newClaim();
    const { id } = await opened(claim, T0);
    await claims.lease(T0, A, at(30));
    expect(await claims.recordAttempt(id, A, 'claim-signature-1')).toBe(true);
    await claims.retry(id, A, at(31), 'unconfirmed');
    await claims.lease(at(31), A, at(60));
    expect(await claims.recordAttempt(id, A, 'claim-signature-2')).toBe(true);
    const again = await other.lease(at(61), B, at(90));
    expect(again).toMatchObject({ id, status: 'in_progress', claimSignatures: ['claim-signature-1', 'claim-signature-2'], claimSignature: null, attempts: 1 });
  });

  it('completes an in-progress claim once: a second completion, a failure or a retry after it change nothing', async () => {
    const claim = newClaim();
    const { id } = await opened(claim, T0);
    expect(await claims.complete(id, A, 'landed')).toBe(false);
    await claims.lease(T0, A, at(30));
    expect(await claims.complete(id, A, 'landed')).toBe(true);
    expect(await other.complete(id, A, 'other')).toBe(false);
    expect(await claims.fail(id, A, 'too late')).toBe(false);
    await claims.retry(id, A, at(60), 'too late');
    expect(await claims.recordAttempt(id, A, 'another')).toBe(false);
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ status: 'completed', claimSignature: 'landed', leaseUntil: null, leaseHolder: null, lastError: null, attempts: 0 });
    expect(await claims.lease(at(3600), A, at(3660))).toBeNull();
  });

  it('puts a claim back with one more attempt, the error (cut to 500 characters), due after its backoff, and no lease', async () => {
    const claim = newClaim();
    const { id } = await opened(claim, T0);
    await claims.lease(T0, A, at(30));
    await claims.retry(id, A, at(60), 'x'.repeat(600));
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ status: 'pending', attempts: 1, dueAt: at(60), leaseUntil: null, leaseHolder: null, lastError: 'x'.repeat(500) });
    expect(await claims.lease(at(59), A, at(90))).toBeNull();
    await claims.lease(at(60), B, at(90));
    await claims.retry(id, B, at(120), 'rpc timeout');
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ status: 'pending', attempts: 2, dueAt: at(120), lastError: 'rpc timeout' });
  });

  it('fails an in-progress claim once, for good, only by its holder', async () => {
    const claim = newClaim();
    const { id } = await opened(claim, T0);
    expect(await claims.fail(id, A, 'not leased')).toBe(false);
    await claims.lease(T0, A, at(30));
    expect(await claims.fail(id, B, 'not the holder')).toBe(false);
    expect(await claims.fail(id, A, 'rejected by the program')).toBe(true);
    expect(await claims.fail(id, A, 'again')).toBe(false);
    expect(await claims.complete(id, A, 'landed')).toBe(false);
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ status: 'failed', lastError: 'rejected by the program', leaseUntil: null });
    expect(await claims.lease(at(3600), A, at(3660))).toBeNull();
  });

  it('ends pending escrow receipts that never got a claim, older ones only, once, and never one with a claim', async () => {
    const now = Date.now();
    const unclaimed = newClaim();
    const claimed = newClaim();
    const young = newClaim();
    await receiptFor(unclaimed, new Date(now - 60_000));
    await receiptFor(claimed, new Date(now - 60_000));
    await receiptFor(young, new Date(now - 1_000));
    expect(await claims.open(claimed, at(0))).toBe(true);
    const exact = escrowReceipt({ scheme: 'exact', escrow: null, createdAt: new Date(now - 60_000) });
    await receipts.create(exact);

    expect(await claims.abandonUnclaimed(new Date(now - 30_000), 10)).toEqual([unclaimed.receiptId]);
    expect(await other.abandonUnclaimed(new Date(now - 30_000), 10)).toEqual([]);
    expect(await receipts.find(unclaimed.receiptId)).toMatchObject({ status: 'not_charged', amountChargedAtomic: 0n });
    expect(await receipts.find(claimed.receiptId)).toMatchObject({ status: 'pending' });
    expect(await receipts.find(young.receiptId)).toMatchObject({ status: 'pending' });
    expect(await receipts.find(exact.id)).toMatchObject({ status: 'pending' });
    // Once abandoned, a late first content can no longer open a claim for it.
    expect(await claims.open(unclaimed, at(0))).toBe(false);
  });

  it('counts claims by status', async () => {
    expect(await claims.counts()).toEqual({ pending: 0, inProgress: 0, failed: 0, completed: 0 });
    const queued = [newClaim(), newClaim(), newClaim(), newClaim(), newClaim()];
    for (const [i, claim] of queued.entries()) await opened(claim, at(i));
    const first = (await claims.lease(at(10), A, at(60))) as EscrowClaim;
    const second = (await claims.lease(at(10), A, at(60))) as EscrowClaim;
    const third = (await claims.lease(at(10), A, at(60))) as EscrowClaim;
    await claims.complete(first.id, A, 'landed');
    await claims.fail(second.id, A, 'rejected');
    expect(third.status).toBe('in_progress');
    expect(await claims.counts()).toEqual({ pending: 2, inProgress: 1, failed: 1, completed: 1 });
  });

  it('bars a wallet, idempotently', async () => {
    const wallet = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
    expect(await claims.isBarred(wallet)).toBe(false);
    await claims.bar(wallet, 'claim rejected by the program', T0);
    await other.bar(wallet, 'claim rejected again', at(60));
    expect(await claims.isBarred(wallet)).toBe(true);
    expect(await other.isBarred(wallet)).toBe(true);
    expect(await claims.isBarred('11111111111111111111111111111111')).toBe(false);
  });
}
