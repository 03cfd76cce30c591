import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { pendingReceipt } from '../../../../test/contracts/receipt-store.contract';
import type { GatewayConfig } from '../../../config/gateway-config';
import type { AppLogger } from '../../../logging/app-logger';
import type { BroadcastRecord, Delivery, Receipt, ReceiptOutcome, ReceiptStatus } from '../domain/receipt';
import { BudgetReservations } from '../ports/budget-reservations';
import { Leases } from '../ports/leases';
import { UnusedPaymentChain } from '../../../../test/support/unused-payment-chain';
import { type ChainStatus, type PreparedTransaction, type SendOutcome, type TransactionLife } from '../ports/payment-chain';
import { ReceiptStore, type ReceiptCursor } from '../ports/receipt-store';
import { PaymentMetrics } from './payment-metrics';
import { ReceiptOutbox } from './receipt-outbox';
import { SettlementReconciler } from './settlement-reconciler';

const logger = { setContext: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as AppLogger;
const config = { http: { requestTimeoutMs: 10_000 }, settlement: { confirmMs: 5_000, leaseTtlMs: 30_000, reconcileIntervalMs: 1_000 } } as GatewayConfig;
const LONG_AGO = new Date(Date.now() - 3_600_000);

/** A chain whose answers the test sets: the status of each signature (a queue, last one sticky), whether blockhashes live, and what was sent. */
class ScriptedChain extends UnusedPaymentChain {
  scripted = new Map<string, ChainStatus[]>();
  blockhashLive = true;
  reachable = true;
  readonly sent: string[] = [];

  override prepare(signedTransaction: string): PreparedTransaction {
    return { signedTransaction, signature: `sig-of-${signedTransaction}` };
  }
  override blockhashValid(): Promise<boolean> {
    return this.reachable ? Promise.resolve(this.blockhashLive) : Promise.reject(new Error('rpc down'));
  }
  override send({ signedTransaction }: PreparedTransaction): Promise<SendOutcome> {
    this.sent.push(signedTransaction);
    return Promise.resolve({ kind: 'sent' });
  }
  override status(signature: string): Promise<ChainStatus> {
    if (!this.reachable) return Promise.reject(new Error('rpc down'));
    const queue = this.scripted.get(signature) ?? ['absent'];
    return Promise.resolve(queue.length > 1 ? (queue.shift() as ChainStatus) : queue[0]);
  }
  override life(signedTransaction: string): TransactionLife {
    return { signature: `sig-of-${signedTransaction}`, recentBlockhash: 'hash', nonceAccount: null };
  }
}

class ListedReceipts extends ReceiptStore {
  readonly rows = new Map<string, Receipt>();
  create(receipt: Receipt): Promise<void> {
    this.rows.set(receipt.id, receipt);
    return Promise.resolve();
  }
  recordBroadcast(id: string, broadcast: BroadcastRecord): Promise<void> {
    Object.assign(this.rows.get(id) as Receipt, broadcast);
    return Promise.resolve();
  }
  complete(id: string, outcome: ReceiptOutcome): Promise<boolean> {
    const row = this.rows.get(id);
    if (row?.status !== 'pending') return Promise.resolve(false);
    Object.assign(row, outcome);
    return Promise.resolve(true);
  }
  recordDelivery(id: string, delivery: Delivery): Promise<void> {
    (this.rows.get(id) as Receipt).delivery ??= delivery;
    return Promise.resolve();
  }
  pending(createdBefore: Date, limit: number, after?: ReceiptCursor): Promise<Receipt[]> {
    const rows = [...this.rows.values()].filter((r) => r.status === 'pending' && r.createdAt < createdBefore);
    const start = after ? rows.findIndex((r) => r.id === after.id) + 1 : 0;
    return Promise.resolve(rows.slice(start, start + limit));
  }
  find(id: string): Promise<Receipt | null> {
    return Promise.resolve(this.rows.get(id) ?? null);
  }
}

class RecordedBudgets extends BudgetReservations {
  readonly followed: Array<[string, ReceiptStatus]> = [];
  reserve(): Promise<null> {
    return Promise.resolve(null);
  }
  follow(receiptId: string, status: Exclude<ReceiptStatus, 'pending'>): Promise<void> {
    this.followed.push([receiptId, status]);
    return Promise.resolve();
  }
  followEnded(): Promise<number> {
    return Promise.resolve(0);
  }
  isBudgeted(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

class OneLease extends Leases {
  holder: string | null = null;
  acquire(_name: string, holder: string): Promise<boolean> {
    this.holder ??= holder;
    return Promise.resolve(this.holder === holder);
  }
  release(): Promise<void> {
    this.holder = null;
    return Promise.resolve();
  }
}

function world() {
  const chain = new ScriptedChain();
  const receipts = new ListedReceipts();
  const budgets = new RecordedBudgets();
  const leases = new OneLease();
  const registry = new Registry();
  const reconciler = (): SettlementReconciler => new SettlementReconciler(chain, budgets, new ReceiptOutbox(logger), new PaymentMetrics(registry), logger, config, receipts, leases);
  const add = async (overrides: Partial<Receipt>): Promise<Receipt> => {
    const receipt = pendingReceipt({ createdAt: LONG_AGO, signedTransaction: randomUUID(), ...overrides });
    await receipts.create(receipt);
    return receipt;
  };
  return { chain, receipts, budgets, leases, registry, reconciler, add };
}

describe('SettlementReconciler', () => {
  it('settles a pending receipt whose transaction landed, charging what was paid, and converts its budget reservation', async () => {
    const { chain, receipts, budgets, reconciler, add } = world();
    const receipt = await add({ broadcastAt: LONG_AGO });
    chain.scripted.set(`sig-of-${receipt.signedTransaction}`, ['confirmed']);
    await reconciler().runOnce();
    expect(await receipts.find(receipt.id)).toMatchObject({ status: 'settled', amountChargedAtomic: receipt.amountPaidAtomic, transactionSignature: `sig-of-${receipt.signedTransaction}` });
    expect(budgets.followed).toEqual([[receipt.id, 'settled']]);
  });

  it('marks failed, charged nothing, a transaction that landed with an error', async () => {
    const { chain, receipts, reconciler, add } = world();
    const receipt = await add({ broadcastAt: LONG_AGO });
    chain.scripted.set(`sig-of-${receipt.signedTransaction}`, ['failed']);
    await reconciler().runOnce();
    expect(await receipts.find(receipt.id)).toMatchObject({ status: 'failed', amountChargedAtomic: 0n });
  });

  it('rebroadcasts the identical bytes of a broadcast transaction not found while its blockhash lives, and leaves it pending', async () => {
    const { chain, receipts, reconciler, add } = world();
    const receipt = await add({ broadcastAt: LONG_AGO });
    await reconciler().runOnce();
    expect(chain.sent).toEqual([receipt.signedTransaction]);
    expect((await receipts.find(receipt.id))?.status).toBe('pending');
  });

  it('never sends a transaction that was never broadcast: it waits while the blockhash lives', async () => {
    const { chain, receipts, reconciler, add } = world();
    const receipt = await add({ broadcastAt: null });
    await reconciler().runOnce();
    expect(chain.sent).toEqual([]);
    expect((await receipts.find(receipt.id))?.status).toBe('pending');
  });

  it('once the blockhash expired and a second history search finds nothing: failed if broadcast, not_charged if never', async () => {
    const { chain, receipts, budgets, reconciler, add } = world();
    const broadcast = await add({ broadcastAt: LONG_AGO });
    const never = await add({ broadcastAt: null });
    chain.blockhashLive = false;
    await reconciler().runOnce();
    expect(await receipts.find(broadcast.id)).toMatchObject({ status: 'failed', amountChargedAtomic: 0n });
    expect(await receipts.find(never.id)).toMatchObject({ status: 'not_charged', amountChargedAtomic: 0n });
    expect(budgets.followed).toEqual([
      [broadcast.id, 'failed'],
      [never.id, 'not_charged'],
    ]);
    expect(chain.sent).toEqual([]);
  });

  it('settles a transaction that landed between the first look-up and the expiry check', async () => {
    const { chain, receipts, reconciler, add } = world();
    const receipt = await add({ broadcastAt: LONG_AGO });
    chain.scripted.set(`sig-of-${receipt.signedTransaction}`, ['absent', 'confirmed']);
    chain.blockhashLive = false;
    await reconciler().runOnce();
    expect((await receipts.find(receipt.id))?.status).toBe('settled');
  });

  it('leaves receipts pending while the RPC cannot answer, and reports their number and age', async () => {
    const { chain, receipts, registry, reconciler, add } = world();
    const receipt = await add({ broadcastAt: LONG_AGO });
    chain.reachable = false;
    await reconciler().runOnce();
    expect((await receipts.find(receipt.id))?.status).toBe('pending');
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/gw_settlement_pending_receipts 1/);
    expect(Number(/gw_settlement_pending_age_seconds (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3_600);
  });

  it('leaves alone receipts that may still belong to a request in progress', async () => {
    const { chain, receipts, reconciler, add } = world();
    chain.blockhashLive = false;
    const accepted = await add({ createdAt: new Date(), broadcastAt: null });
    const confirming = await add({ createdAt: new Date(), broadcastAt: new Date() });
    await reconciler().runOnce();
    expect((await receipts.find(accepted.id))?.status).toBe('pending');
    expect((await receipts.find(confirming.id))?.status).toBe('pending');
  });

  it('finishes a receipt once: a receipt the request finished first is left alone, its budget followed once', async () => {
    const { chain, receipts, budgets, reconciler, add } = world();
    const receipt = await add({ broadcastAt: LONG_AGO });
    chain.scripted.set(`sig-of-${receipt.signedTransaction}`, ['confirmed']);
    const first = receipts.complete.bind(receipts);
    // The request's own confirmation lands between the reconciler's look-up and its write.
    jest.spyOn(receipts, 'complete').mockImplementationOnce(async (id, outcome) => {
      await first(id, { status: 'settled', amountChargedAtomic: receipt.amountPaidAtomic, settledAt: new Date() });
      return first(id, outcome);
    });
    await reconciler().runOnce();
    expect((await receipts.find(receipt.id))?.status).toBe('settled');
    expect(budgets.followed).toEqual([]);
  });

  it('walks the pending receipts page by page, so ones it cannot finish yet never hide newer ones', async () => {
    const { chain, receipts, reconciler, add } = world();
    const stuck = await Promise.all(Array.from({ length: 200 }, () => add({ broadcastAt: null })));
    const landed = await add({ broadcastAt: LONG_AGO, createdAt: new Date(LONG_AGO.getTime() + 1) });
    chain.scripted.set(`sig-of-${landed.signedTransaction}`, ['confirmed']);
    const worker = reconciler();
    await worker.runOnce();
    expect((await receipts.find(landed.id))?.status).toBe('pending');
    await worker.runOnce();
    expect((await receipts.find(landed.id))?.status).toBe('settled');
    expect((await receipts.find(stuck[0].id))?.status).toBe('pending');
  });

  it('runs on one replica at a time: without the lease it does nothing', async () => {
    const { chain, receipts, leases, reconciler, add } = world();
    const receipt = await add({ broadcastAt: LONG_AGO });
    chain.scripted.set(`sig-of-${receipt.signedTransaction}`, ['confirmed']);
    leases.holder = 'another replica';
    await reconciler().runOnce();
    expect((await receipts.find(receipt.id))?.status).toBe('pending');
  });
});
