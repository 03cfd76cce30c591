import type { DataSource, Repository } from 'typeorm';
import type { SpendRecord } from '../../modules/billing/domain/spend-record';
import { SpendLog } from '../../modules/billing/ports/spend-log';
import { SpendLogRow } from './entities/spend-log.row';

/** The spend log in PostgreSQL (or embedded PGlite, reached through the same driver). */
export class PostgresSpendLog extends SpendLog {
  private readonly rows: Repository<SpendLogRow>;

  constructor(dataSource: DataSource) {
    super();
    this.rows = dataSource.getRepository(SpendLogRow);
  }

  async record(entry: SpendRecord): Promise<void> {
    await insertSpend(this.rows, entry);
  }

  async findByRequestId(requestId: string): Promise<SpendRecord | null> {
    const row = await this.rows.findOneBy({ requestId });
    return row ? { ...row } : null;
  }
}

/** Writes a spend row through `rows`, which may be a transaction's (a channel draw writes its row with the rest of the draw); a repeated request id is ignored. */
export async function insertSpend(rows: Repository<SpendLogRow>, entry: SpendRecord): Promise<void> {
  await rows.createQueryBuilder().insert().values(entry).orIgnore().execute();
}
