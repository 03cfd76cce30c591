import { randomUUID } from 'node:crypto';
import { Injectable, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { AppLogger } from '../../../logging/app-logger';
import type { Receipt, ReceiptOutcome } from '../domain/receipt';
import { BudgetReservations } from '../ports/budget-reservations';
import { EscrowClaims } from '../ports/escrow-claims';
import { Leases } from '../ports/leases';
import { PaymentChain, type ChainStatus } from '../ports/payment-chain';
import { ReceiptStore, type ReceiptCursor } from '../ports/receipt-store';
import { PaymentMetrics } from './payment-metrics';
import { ReceiptOutbox } from './receipt-outbox';

const LEASE = 'settlement-reconciler';
/** Receipts looked at in one pass; the rest wait for the next. */
const BATCH = 200;

/**
 * Finishes every `pending` receipt (docs/decisions.md, "The durable claim, receipts and the reconciler"), on a lease so one replica runs it;
 * an escrow receipt whose answer never began is `not_charged`, and the claim processor finishes the rest of escrow's:
 * a landed transaction is `settled` (or `failed` when it landed with an error); one not found is
 * rebroadcast, identical bytes, while its blockhash lives; once the blockhash has expired and a
 * second history search still finds nothing it is `failed` if it was broadcast, else `not_charged`.
 * While the RPC cannot answer, receipts stay pending and the pending-age metric grows.
 */
@Injectable()
export class SettlementReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly holder = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private cursor: ReceiptCursor | null = null;

  constructor(
    private readonly chain: PaymentChain,
    private readonly budgets: BudgetReservations,
    private readonly outbox: ReceiptOutbox,
    private readonly metrics: PaymentMetrics,
    private readonly logger: AppLogger,
    private readonly config: GatewayConfig,
    @Optional() private readonly receipts?: ReceiptStore,
    @Optional() private readonly leases?: Leases,
    @Optional() private readonly claims?: EscrowClaims,
  ) {
    logger.setContext(SettlementReconciler.name);
  }

  onApplicationBootstrap(): void {
    if (!this.receipts || !this.leases) return;
    this.timer = setInterval(() => this.tick(), this.config.settlement.reconcileIntervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    await this.pass;
    await this.leases?.release(LEASE, this.holder).catch((err: unknown) => this.logger.warn({ err }, 'could not release the reconciler lease; it expires by itself'));
  }

  private tick(): void {
    this.pass ??= this.runOnce()
      .catch((err: unknown) => this.logger.warn({ err }, 'reconciler pass failed; receipts stay pending'))
      .finally(() => (this.pass = null));
  }

  /** One pass over a page of pending receipts, while this replica holds the lease (the interval calls it; so do tests). */
  async runOnce(): Promise<void> {
    const receipts = this.receipts as ReceiptStore;
    if (!(await this.holdLease())) return;
    const now = Date.now();
    const pending = await receipts.pending(new Date(now), BATCH, this.cursor ?? undefined);
    // The next pass goes on after this page; a short page means the walk starts over.
    this.cursor = pending.length === BATCH ? pending[pending.length - 1] : null;
    if (pending.length > 0) this.metrics.pending(pending.length, (now - pending[0].createdAt.getTime()) / 1000);
    else this.metrics.pending(0, 0);
    const { confirmMs } = this.config.settlement;
    // Younger receipts may still belong to a request in progress on some replica.
    const unbroadcastCutoff = now - this.config.http.requestTimeoutMs - confirmMs;
    await this.abandonUnclaimed(now);
    await this.finishClaimed();
    const followed = await this.budgets.followEnded();
    if (followed > 0) this.logger.warn({ lines: followed }, 'budget lines held past their receipt now follow it');
    for (const receipt of pending) {
      const ripe = receipt.broadcastAt ? receipt.broadcastAt.getTime() < now - confirmMs : receipt.createdAt.getTime() < unbroadcastCutoff;
      if (!ripe) continue;
      // Renewed per receipt: a long pass must not let a second replica in.
      if (!(await this.holdLease())) return;
      try {
        await this.reconcile(receipt);
      } catch (err) {
        this.logger.warn({ err, receipt: receipt.id }, 'could not reconcile a pending receipt; retrying next pass');
      }
    }
  }

  /**
   * Escrow receipts whose answer never began (no claim row) once the request timeout and the
   * confirmation window have passed since acceptance: `not_charged`, budget line released. The
   * claim processor finishes the others from their claims.
   */
  private async abandonUnclaimed(now: number): Promise<void> {
    if (!this.claims) return;
    // An escrow answer begins within the request timeout on chat, within the serve bound on A2A.
    const createdBefore = new Date(now - Math.max(this.config.http.requestTimeoutMs, this.config.a2a.serveMs) - this.config.settlement.confirmMs);
    for (const id of await this.claims.abandonUnclaimed(createdBefore, BATCH)) {
      this.logger.info({ receipt: id }, 'escrow receipt whose answer never began: not charged');
      this.metrics.settlement('reconciled_not_charged');
      await this.budgets.follow(id, 'not_charged').catch((err: unknown) => this.logger.error({ err, receipt: id }, 'budget reservation could not follow its receipt'));
    }
  }

  /** Escrow receipts still pending although their claim ended (the receipt's write after the claim's was lost): finished from the claim. */
  private async finishClaimed(): Promise<void> {
    if (!this.claims) return;
    for (const claim of await this.claims.endedWithPendingReceipt(BATCH)) {
      const landed = claim.status === 'completed' && claim.claimSignature !== null;
      await this.finish(
        { id: claim.receiptId },
        landed
          ? { status: 'settled', amountChargedAtomic: claim.claimAtomic, settledAt: new Date(), claimSignature: claim.claimSignature as string }
          : { status: 'failed', amountChargedAtomic: 0n, settledAt: null },
        landed ? claim.claimAtomic : undefined,
      );
    }
  }

  private holdLease(): Promise<boolean> {
    return (this.leases as Leases).acquire(LEASE, this.holder, this.config.settlement.leaseTtlMs);
  }

  private async reconcile(receipt: Receipt): Promise<void> {
    // The bytes it was (or would have been) sent as: a sponsored payment's id is our own
    // deterministic co-signature, the same whether or not the broadcast bytes were recorded.
    const prepared = this.chain.prepare(receipt.signedTransaction);
    if (!prepared) throw new Error('its fee payer key cannot sign');
    const life = this.chain.life(prepared.signedTransaction);
    if (await this.concluded(receipt, await this.chain.status(life.signature), life.signature)) return;
    if (await this.chain.blockhashValid(life)) {
      // Never broadcast: the request may have ended before its answer began, so it is not ours to send.
      if (receipt.broadcastAt) await this.chain.send(prepared);
      return;
    }
    // Expired: it may still have landed between the two look-ups.
    if (await this.concluded(receipt, await this.chain.status(life.signature), life.signature)) return;
    await this.finish(receipt, { status: receipt.broadcastAt ? 'failed' : 'not_charged', amountChargedAtomic: 0n, settledAt: null });
  }

  /** Finishes the receipt when the chain has the transaction; true when there is nothing more to do this pass. */
  private async concluded(receipt: Receipt, status: ChainStatus, signature: string): Promise<boolean> {
    if (status === 'absent') return false;
    if (status === 'confirmed') await this.finish(receipt, { status: 'settled', amountChargedAtomic: receipt.amountPaidAtomic, settledAt: new Date(), transactionSignature: signature });
    if (status === 'failed') await this.finish(receipt, { status: 'failed', amountChargedAtomic: 0n, settledAt: null, transactionSignature: signature });
    return true;
  }

  /**
   * Finishes the receipt; its budget reservation and the metric follow only if this pass moved it
   * (the request may have first). `chargedAtomic`: what an escrow claim took, for its budget line.
   */
  private async finish(receipt: Pick<Receipt, 'id'>, outcome: ReceiptOutcome, chargedAtomic?: bigint): Promise<void> {
    const receipts = this.receipts as ReceiptStore;
    await this.outbox.write(`receipt ${receipt.id}: ${outcome.status}`, async () => {
      if (!(await receipts.complete(receipt.id, outcome))) return;
      this.logger.info({ receipt: receipt.id, status: outcome.status }, 'reconciled a pending receipt');
      this.metrics.settlement(`reconciled_${outcome.status}`);
      await this.budgets.follow(receipt.id, outcome.status, chargedAtomic);
    });
  }
}
