import { randomUUID } from 'node:crypto';
import type { Receipt, ReceiptOutcome } from '../../src/modules/payments/domain/receipt';
import { PaymentAlreadyHeld, type ReceiptStore } from '../../src/modules/payments/ports/receipt-store';

/** A pending receipt as the payment flow writes it when it accepts a payment. */
export function pendingReceipt(overrides: Partial<Receipt> = {}): Receipt {
  return {
    id: randomUUID(),
    status: 'pending',
    scheme: 'exact',
    network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    payerWallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
    payTo: '11111111111111111111111111111111',
    transactionSignature: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
    amountQuotedAtomic: 21_505n,
    amountPaidAtomic: 21_505n,
    amountChargedAtomic: 0n,
    endpoint: '/v1/chat/completions',
    model: 'google/gemini-2.5-flash',
    requestId: randomUUID(),
    createdAt: new Date('2026-11-22T10:00:00.123Z'),
    settledAt: null,
    delivery: null,
    broadcastAt: null,
    replayKey: randomUUID(),
    signedTransaction: 'AQID',
    escrow: null,
    ...overrides,
  };
}

/** A pending escrow receipt: the deposit's transaction, and where the deposit sits until it is claimed. */
export function escrowReceipt(overrides: Partial<Receipt> = {}): Receipt {
  return pendingReceipt({
    scheme: 'escrow',
    escrow: { address: 'Esc1111111111111111111111111111111111111111', expirySlot: 9_007_199_254_740_993n, claimSignature: null },
    ...overrides,
  });
}

const SETTLED: ReceiptOutcome = { status: 'settled', amountChargedAtomic: 21_505n, settledAt: new Date('2026-11-22T10:00:02.456Z') };

/** The behaviour every ReceiptStore adapter must have; each adapter's spec runs it against its own. */
export function receiptStoreContract(open: () => Promise<{ store: ReceiptStore; close: () => Promise<void> }>): void {
  let store: ReceiptStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await open());
  });
  afterAll(() => close());

  it('returns a created receipt as written', async () => {
    const receipt = pendingReceipt();
    await store.create(receipt);
    expect(await store.find(receipt.id)).toEqual(receipt);
  });

  it('returns null for an unknown id, to find and to complete', async () => {
    expect(await store.find(randomUUID())).toBeNull();
    expect(await store.complete(randomUUID(), SETTLED)).toBe(false);
  });

  it('keeps atomic amounts exact beyond 2^53', async () => {
    const receipt = pendingReceipt({ amountQuotedAtomic: 9_007_199_254_740_993n, amountPaidAtomic: 9_007_199_254_740_995n });
    await store.create(receipt);
    await store.complete(receipt.id, { ...SETTLED, amountChargedAtomic: 9_007_199_254_740_995n });
    expect(await store.find(receipt.id)).toMatchObject({
      amountQuotedAtomic: 9_007_199_254_740_993n,
      amountPaidAtomic: 9_007_199_254_740_995n,
      amountChargedAtomic: 9_007_199_254_740_995n,
    });
  });

  it('creates a receipt once: a second create with the same id changes nothing', async () => {
    const receipt = pendingReceipt();
    await store.create(receipt);
    await store.create({ ...receipt, status: 'settled', amountPaidAtomic: 1n, model: null });
    expect(await store.find(receipt.id)).toEqual(receipt);
  });

  it('settles a pending receipt with the charged amount and time, and returns it', async () => {
    const receipt = pendingReceipt();
    await store.create(receipt);
    const settled = { ...receipt, status: 'settled', amountChargedAtomic: 21_505n, settledAt: SETTLED.settledAt };
    expect(await store.complete(receipt.id, SETTLED)).toBe(true);
    expect(await store.find(receipt.id)).toEqual(settled);
  });

  it('records the model that finally answered, and keeps the quoted one when none is given', async () => {
    const fallback = pendingReceipt();
    const primary = pendingReceipt();
    await Promise.all([store.create(fallback), store.create(primary)]);
    await store.complete(fallback.id, { ...SETTLED, model: 'openai/gpt-4o-mini' });
    await store.complete(primary.id, SETTLED);
    expect((await store.find(fallback.id))?.model).toBe('openai/gpt-4o-mini');
    expect((await store.find(primary.id))?.model).toBe('google/gemini-2.5-flash');
  });

  it('marks a receipt not charged with no settlement time', async () => {
    const receipt = pendingReceipt();
    await store.create(receipt);
    expect(await store.complete(receipt.id, { status: 'not_charged', amountChargedAtomic: 0n, settledAt: null })).toBe(true);
    expect(await store.find(receipt.id)).toEqual({ ...receipt, status: 'not_charged' });
  });

  it('completes a receipt once: a later completion says so and changes nothing', async () => {
    const receipt = pendingReceipt();
    await store.create(receipt);
    expect(await store.complete(receipt.id, SETTLED)).toBe(true);
    const settled = await store.find(receipt.id);
    expect(await store.complete(receipt.id, { status: 'failed', amountChargedAtomic: 0n, settledAt: null, model: 'openai/gpt-4o-mini' })).toBe(false);
    expect(await store.find(receipt.id)).toEqual(settled);
  });

  it('lets exactly one of concurrent completions win', async () => {
    const receipt = pendingReceipt();
    await store.create(receipt);
    const outcomes: ReceiptOutcome[] = [SETTLED, { status: 'failed', amountChargedAtomic: 0n, settledAt: null }];
    const results = await Promise.all(outcomes.map((outcome) => store.complete(receipt.id, outcome)));
    const stored = await store.find(receipt.id);
    expect(['settled', 'failed']).toContain(stored?.status);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('is the durable claim: a second receipt for the same payment is refused until the first is not_charged', async () => {
    const first = pendingReceipt();
    await store.create(first);
    await expect(store.create(pendingReceipt({ replayKey: first.replayKey }))).rejects.toBeInstanceOf(PaymentAlreadyHeld);
    await store.complete(first.id, { status: 'not_charged', amountChargedAtomic: 0n, settledAt: null });
    const retry = pendingReceipt({ replayKey: first.replayKey });
    await store.create(retry);
    expect((await store.find(retry.id))?.status).toBe('pending');
    await expect(store.create(pendingReceipt({ replayKey: first.replayKey }))).rejects.toBeInstanceOf(PaymentAlreadyHeld);
  });

  it('lets exactly one of concurrent receipts for one payment in', async () => {
    const replayKey = randomUUID();
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => store.create(pendingReceipt({ replayKey }))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof PaymentAlreadyHeld)).toBe(true);
  });

  it('records the broadcast bytes and time, and the delivery once', async () => {
    const receipt = pendingReceipt();
    await store.create(receipt);
    const broadcast = { broadcastAt: new Date('2026-11-22T10:00:01.000Z'), signedTransaction: 'BAUG', transactionSignature: 'sig-as-sent' };
    await store.recordBroadcast(receipt.id, broadcast);
    await store.recordDelivery(receipt.id, 'partial');
    await store.recordDelivery(receipt.id, 'complete');
    expect(await store.find(receipt.id)).toEqual({ ...receipt, ...broadcast, delivery: 'partial' });
  });

  it('lists pending receipts created before a time that hold their transaction, oldest first, page by page', async () => {
    const at = (ms: number): Date => new Date(Date.UTC(2020, 0, 1) + ms);
    const older = pendingReceipt({ createdAt: at(0) });
    const newer = pendingReceipt({ createdAt: at(1000) });
    const done = pendingReceipt({ createdAt: at(500) });
    const legacy = pendingReceipt({ createdAt: at(200), signedTransaction: '' });
    await Promise.all([store.create(newer), store.create(older), store.create(done), store.create(legacy)]);
    await store.complete(done.id, SETTLED);
    const pending = await store.pending(at(5000), 10);
    expect(pending.map((r) => r.id)).toEqual([older.id, newer.id]);
    expect(await store.pending(at(500), 10)).toEqual([older]);
    expect((await store.pending(at(5000), 1)).map((r) => r.id)).toEqual([older.id]);
    expect((await store.pending(at(5000), 1, older)).map((r) => r.id)).toEqual([newer.id]);
    expect(await store.pending(at(5000), 1, newer)).toEqual([]);
  });

  it('returns an escrow receipt with its escrow part as written, slots exact beyond 2^53', async () => {
    const receipt = escrowReceipt();
    await store.create(receipt);
    expect(await store.find(receipt.id)).toEqual(receipt);
  });

  it('keeps the landed claim in the escrow part when the completion names it', async () => {
    const receipt = escrowReceipt();
    await store.create(receipt);
    const claimed: ReceiptOutcome = { status: 'settled', amountChargedAtomic: 12_000n, settledAt: SETTLED.settledAt, claimSignature: 'claim-signature' };
    expect(await store.complete(receipt.id, claimed)).toBe(true);
    expect(await store.find(receipt.id)).toEqual({
      ...receipt,
      status: 'settled',
      amountChargedAtomic: 12_000n,
      settledAt: SETTLED.settledAt,
      escrow: { ...receipt.escrow, claimSignature: 'claim-signature' },
    });
  });

  it('leaves escrow receipts out of the pending ones: their claim queue finishes them, not the reconciler', async () => {
    const at = (ms: number): Date => new Date(Date.UTC(2021, 0, 1) + ms);
    // From just before this test's receipts: the other tests' pending receipts are older or newer.
    const from = { createdAt: at(-1), id: '00000000-0000-0000-0000-000000000000' };
    const exact = pendingReceipt({ createdAt: at(0) });
    const escrow = escrowReceipt({ createdAt: at(100) });
    await Promise.all([store.create(exact), store.create(escrow)]);
    expect(await store.pending(at(5000), 10, from)).toEqual([exact]);
  });
}
