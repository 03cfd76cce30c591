import type { DataSource, Repository } from 'typeorm';
import type { Receipt, ReceiptOutcome } from '../../modules/payments/domain/receipt';
import { ReceiptStore } from '../../modules/payments/ports/receipt-store';
import { ReceiptRow } from './entities/receipt.row';

/** Receipts in PostgreSQL (or embedded PGlite, reached through the same driver). */
export class PostgresReceiptStore extends ReceiptStore {
  private readonly rows: Repository<ReceiptRow>;

  constructor(dataSource: DataSource) {
    super();
    this.rows = dataSource.getRepository(ReceiptRow);
  }

  async create(receipt: Receipt): Promise<void> {
    await this.rows.createQueryBuilder().insert().values(receipt).orIgnore().execute();
  }

  async complete(id: string, outcome: ReceiptOutcome): Promise<Receipt | null> {
    const { status, amountChargedAtomic, settledAt, model, transactionSignature } = outcome;
    // Only a pending receipt moves: a late or repeated completion leaves a final one as it is.
    await this.rows.update(
      { id, status: 'pending' },
      { status, amountChargedAtomic, settledAt, ...(model === undefined ? {} : { model }), ...(transactionSignature === undefined ? {} : { transactionSignature }) },
    );
    return this.find(id);
  }

  async find(id: string): Promise<Receipt | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? { ...row } : null;
  }
}
