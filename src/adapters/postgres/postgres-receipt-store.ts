import { QueryFailedError, type DataSource, type Repository } from 'typeorm';
import type { BroadcastRecord, Delivery, Receipt, ReceiptOutcome } from '../../modules/payments/domain/receipt';
import { PaymentAlreadyHeld, ReceiptStore, type ReceiptCursor } from '../../modules/payments/ports/receipt-store';
import { ReceiptRow } from './entities/receipt.row';

/** PostgreSQL's unique_violation, and the index that makes a receipt the durable claim on its payment. */
const UNIQUE_VIOLATION = '23505';
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
    const { status, amountChargedAtomic, settledAt, model, transactionSignature, claimSignature } = outcome;
    // Only a pending receipt moves: a late or repeated completion leaves a final one as it is.
    const result = await this.rows.update(
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

/** The constraint a unique violation names, or null for any other error. */
function uniqueViolation(err: unknown): string | null {
  if (!(err instanceof QueryFailedError)) return null;
  const driverError = err.driverError as { code?: unknown; constraint?: unknown };
  return driverError.code === UNIQUE_VIOLATION && typeof driverError.constraint === 'string' ? driverError.constraint : null;
}
