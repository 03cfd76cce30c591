import { randomUUID } from 'node:crypto';
import type { EscrowClaim, EscrowClaims, NewEscrowClaim } from '../../src/modules/payments/ports/escrow-claims';

/** A claim as the escrow flow queues it once the answer was delivered. */
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

/** What an instance opens: the queue, and `other`, the same queue as another instance reaches it (its own connections where the adapter has them). */
export interface OpenedClaims {
  claims: EscrowClaims;
  other: EscrowClaims;
  close: () => Promise<void>;
}

/** The behaviour every EscrowClaims adapter must have; each test gets an empty queue of its own. */
export function escrowClaimsContract(open: () => Promise<OpenedClaims>): void {
  let claims: EscrowClaims;
  let other: EscrowClaims;
  let close: () => Promise<void> = async () => undefined;

  beforeEach(async () => {
    ({ claims, other, close } = await open());
  });
  afterEach(() => close());

  /** Enqueues `claim` at `now` and returns it as stored. */
  const enqueued = async (claim: NewEscrowClaim, now: Date): Promise<EscrowClaim> => {
    expect(await claims.enqueue(claim, now)).toBe(true);
    const stored = await claims.findByReceipt(claim.receiptId);
    if (!stored) throw new Error('an enqueued claim is found by its receipt');
    return stored;
  };

  it('returns a queued claim by its receipt as written, pending and due at once, amounts and slot exact beyond 2^53', async () => {
    const claim = newClaim({ depositAtomic: 9_007_199_254_740_995n, claimAtomic: 9_007_199_254_740_993n, expirySlot: 9_223_372_036_854_775_807n });
    expect(await claims.enqueue(claim, T0)).toBe(true);
    expect(await claims.findByReceipt(claim.receiptId)).toEqual({
      ...claim,
      id: expect.any(String),
      status: 'pending',
      attempts: 0,
      nextRetryAt: T0,
      leaseUntil: null,
      claimSignature: null,
      lastError: null,
      createdAt: T0,
    });
    expect(await claims.findByReceipt(randomUUID())).toBeNull();
  });

  it('queues one claim per receipt: a second is ignored and changes nothing', async () => {
    const claim = newClaim();
    const first = await enqueued(claim, T0);
    expect(await claims.enqueue({ ...claim, claimAtomic: 1n, escrow: 'Other111111111111111111111111111111111111111' }, at(5))).toBe(false);
    expect(await claims.findByReceipt(claim.receiptId)).toEqual(first);
  });

  it('leases due claims oldest first, up to the limit, moving them in progress until the lease ends', async () => {
    const [a, b, c] = [newClaim(), newClaim(), newClaim()];
    await enqueued(b, at(1));
    await enqueued(c, at(2));
    await enqueued(a, at(0));
    const first = await claims.lease(2, at(10), at(70));
    expect(first.map((claim) => claim.receiptId)).toEqual([a.receiptId, b.receiptId]);
    expect(first.every((claim) => claim.status === 'in_progress' && claim.leaseUntil?.getTime() === at(70).getTime())).toBe(true);
    expect(await claims.findByReceipt(a.receiptId)).toMatchObject({ status: 'in_progress', leaseUntil: at(70), attempts: 0 });
    expect((await claims.lease(10, at(10), at(70))).map((claim) => claim.receiptId)).toEqual([c.receiptId]);
    expect(await claims.lease(10, at(10), at(70))).toEqual([]);
  });

  it('does not lease a claim before its next retry time', async () => {
    const claim = newClaim();
    await enqueued(claim, at(60));
    expect(await claims.lease(10, at(59), at(120))).toEqual([]);
    expect((await claims.lease(10, at(60), at(120))).map((leased) => leased.receiptId)).toEqual([claim.receiptId]);
  });

  it('leases a claim again once its lease lapsed: an instance that died strands nothing', async () => {
    const claim = newClaim();
    await enqueued(claim, T0);
    const [leased] = await claims.lease(10, T0, at(30));
    expect(await other.lease(10, at(29), at(90))).toEqual([]);
    const again = await other.lease(10, at(30), at(90));
    expect(again).toEqual([{ ...leased, leaseUntil: at(90) }]);
  });

  it('never hands one claim to two instances leasing at once', async () => {
    const queued = Array.from({ length: 20 }, (_, i) => newClaim({ expirySlot: BigInt(i) }));
    for (const [i, claim] of queued.entries()) await enqueued(claim, at(i));
    const concurrent = await Promise.all([claims.lease(7, at(100), at(200)), other.lease(7, at(100), at(200)), claims.lease(7, at(100), at(200)), other.lease(7, at(100), at(200))]);
    const rest = await claims.lease(100, at(100), at(200));
    const ids = [...concurrent.flat(), ...rest].map((claim) => claim.receiptId);
    expect(concurrent.every((batch) => batch.length <= 7)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(queued.map((claim) => claim.receiptId).sort());
  });

  it('records the claim transaction before its send, so whoever leases the claim next sees it', async () => {
    const claim = newClaim();
    const { id } = await enqueued(claim, T0);
    await claims.lease(10, T0, at(30));
    await claims.recordAttempt(id, 'claim-signature-1');
    const [again] = await other.lease(10, at(31), at(90));
    expect(again).toMatchObject({ id, status: 'in_progress', claimSignature: 'claim-signature-1' });
  });

  it('completes an in-progress claim once: a second completion, a failure or a retry after it change nothing', async () => {
    const claim = newClaim();
    const { id } = await enqueued(claim, T0);
    expect(await claims.complete(id, 'landed')).toBe(false);
    await claims.lease(10, T0, at(30));
    expect(await claims.complete(id, 'landed')).toBe(true);
    expect(await other.complete(id, 'other')).toBe(false);
    expect(await claims.fail(id, 'too late')).toBe(false);
    await claims.retry(id, at(60), 'too late');
    await claims.recordAttempt(id, 'another');
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ status: 'completed', claimSignature: 'landed', leaseUntil: null, lastError: null, attempts: 0 });
    expect(await claims.lease(10, at(3600), at(3660))).toEqual([]);
  });

  it('puts a claim back with one more attempt, the error (cut to 500 characters) and no lease', async () => {
    const claim = newClaim();
    const { id } = await enqueued(claim, T0);
    await claims.lease(10, T0, at(30));
    await claims.retry(id, at(60), 'x'.repeat(600));
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ status: 'pending', attempts: 1, nextRetryAt: at(60), leaseUntil: null, lastError: 'x'.repeat(500) });
    expect(await claims.lease(10, at(59), at(90))).toEqual([]);
    await claims.lease(10, at(60), at(90));
    await claims.retry(id, at(120), 'rpc timeout');
    expect(await claims.findByReceipt(claim.receiptId)).toMatchObject({ status: 'pending', attempts: 2, nextRetryAt: at(120), leaseUntil: null, lastError: 'rpc timeout' });
  });

  it('fails a pending or in-progress claim once, for good', async () => {
    const pending = newClaim();
    const leased = newClaim();
    const { id: leasedId } = await enqueued(leased, T0);
    const { id: pendingId } = await enqueued(pending, at(1));
    expect((await claims.lease(1, at(1), at(30))).map((claim) => claim.id)).toEqual([leasedId]);
    expect(await claims.fail(pendingId, 'escrow expired')).toBe(true);
    expect(await claims.findByReceipt(pending.receiptId)).toMatchObject({ status: 'failed', lastError: 'escrow expired', attempts: 0 });
    expect(await claims.fail(leasedId, 'rejected by the program')).toBe(true);
    expect(await claims.fail(leasedId, 'again')).toBe(false);
    expect(await claims.complete(leasedId, 'landed')).toBe(false);
    expect(await claims.findByReceipt(leased.receiptId)).toMatchObject({ status: 'failed', lastError: 'rejected by the program', leaseUntil: null });
    expect(await claims.lease(10, at(3600), at(3660))).toEqual([]);
  });

  it('counts claims by status', async () => {
    expect(await claims.counts()).toEqual({ pending: 0, inProgress: 0, failed: 0, completed: 0 });
    const queued = [newClaim(), newClaim(), newClaim(), newClaim(), newClaim()];
    for (const [i, claim] of queued.entries()) await enqueued(claim, at(i));
    const [first, second, third] = await claims.lease(3, at(10), at(60));
    await claims.complete(first.id, 'landed');
    await claims.fail(second.id, 'rejected');
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
