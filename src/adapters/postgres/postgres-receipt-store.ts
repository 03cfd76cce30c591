import type { DataSource, Repository } from 'typeorm';
import type { BroadcastRecord, Delivery, Receipt, ReceiptOutcome } from '../../modules/payments/domain/receipt';
import { PaymentAlreadyHeld, ReceiptStore, type ReceiptCursor } from '../../modules/payments/ports/receipt-store';
import { ReceiptRow } from './entities/receipt.row';
import { uniqueViolation } from './sql';

/** The index that makes a receipt the durable claim on its payment. */
const PAYMENT_CLAIM_INDEX = 'receipts_payment_claim_idx';
const PRIMARY_KEY = 'receipts_pkey';

/** Receipts in PostgreSQL (or embedded PGlite, reached through the same driver). */
export class PostgresReceiptStore extends ReceiptStore {
  private readonly rows: Repository<ReceiptRow>;

  constructor(dataSource: DataSource) {
    super();
    this.rows = dataSource.getRepository(ReceiptRow);
  }

  async create(receipt: Receipt): Promise<void> {
    // No ON CONFLICT DO NOTHING: it would swallow the claim index's violation too, and so a replay.
    try {
      await this.rows.createQueryBuilder().insert().values(toRow(receipt)).execute();
    } catch (err) {
      const constraint = uniqueViolation(err);
      if (constraint === PAYMENT_CLAIM_INDEX) throw new PaymentAlreadyHeld();
      if (constraint !== PRIMARY_KEY) throw err;
    }
  }

  async recordBroadcast(id: string, broadcast: BroadcastRecord): Promise<void> {
    await this.rows.update({ id }, broadcast);
  }

  async complete(id: string, outcome: ReceiptOutcome): Promise<boolean> {
    return completeReceipt(this.rows, id, outcome);
  }

  async recordDelivery(id: string, delivery: Delivery): Promise<void> {
    await this.rows.createQueryBuilder().update().set({ delivery }).where('id = :id AND delivery IS NULL', { id }).execute();
  }

  async pending(createdBefore: Date, limit: number, after?: ReceiptCursor): Promise<Receipt[]> {
    const query = this.rows
      .createQueryBuilder('receipt')
      // Exact receipts only: an escrow receipt is finished by its claim (src/modules/payments/ports/escrow-claims.ts), never by rebroadcasting its deposit.
      .where("receipt.status = 'pending' AND receipt.scheme = 'exact' AND receipt.created_at < :createdBefore AND receipt.signed_transaction <> ''", { createdBefore })
      .orderBy('receipt.created_at', 'ASC')
      .addOrderBy('receipt.id', 'ASC')
      .take(limit);
    if (after) query.andWhere('(receipt.created_at, receipt.id) > (:afterCreatedAt, :afterId)', { afterCreatedAt: after.createdAt, afterId: after.id });
    const rows = await query.getMany();
    return rows.map(toReceipt);
  }

  async find(id: string): Promise<Receipt | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? toReceipt(row) : null;
  }
}

/** Completes a pending receipt through `rows`, which may be a transaction's (a channel draw settles its receipt with the rest of the draw). */
export async function completeReceipt(rows: Repository<ReceiptRow>, id: string, outcome: ReceiptOutcome): Promise<boolean> {
  const { status, amountChargedAtomic, settledAt, model, transactionSignature, claimSignature } = outcome;
  // Only a pending receipt moves: a late or repeated completion leaves a final one as it is.
  const result = await rows.update(
    { id, status: 'pending' },
    {
      status,
      amountChargedAtomic,
      settledAt,
      ...(model === undefined ? {} : { model }),
      ...(transactionSignature === undefined ? {} : { transactionSignature }),
      ...(claimSignature === undefined ? {} : { escrowClaimSignature: claimSignature }),
    },
  );
  return result.affected === 1;
}

function toRow(receipt: Receipt): ReceiptRow {
  const { escrow, ...rest } = receipt;
  return { ...rest, escrowAddress: escrow?.address ?? null, escrowExpirySlot: escrow?.expirySlot ?? null, escrowClaimSignature: escrow?.claimSignature ?? null };
}

function toReceipt(row: ReceiptRow): Receipt {
  const { escrowAddress, escrowExpirySlot, escrowClaimSignature, ...rest } = row;
  // The schema keeps address and expiry slot both set or both null (receipts_escrow_check).
  const escrow = escrowAddress === null || escrowExpirySlot === null ? null : { address: escrowAddress, expirySlot: escrowExpirySlot, claimSignature: escrowClaimSignature };
  return { ...rest, escrow };
}
