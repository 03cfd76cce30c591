import { pendingReceipt, receiptStoreContract } from '../../../test/contracts/receipt-store.contract';
import { emptiedPgliteEachTime, migratedDataDir } from '../../../test/support/pglite-data-dir';
import type { ReceiptStatus } from '../../modules/payments/domain/receipt';
import { Database } from './database';
import { PostgresReceiptStore } from './postgres-receipt-store';

const openDatabase = async (): Promise<Database> => Database.open({ kind: 'pglite', dataDir: await migratedDataDir() });

describe('PostgresReceiptStore on embedded PGlite', () => {
  const emptied = emptiedPgliteEachTime();
  receiptStoreContract(async () => {
    const database = await emptied();
    return { store: new PostgresReceiptStore(database.dataSource), close: async () => undefined };
  });

  it('refuses, in the schema, negative amounts and statuses outside the four', async () => {
    const database = await openDatabase();
    const store = new PostgresReceiptStore(database.dataSource);
    try {
      await expect(store.create(pendingReceipt({ amountPaidAtomic: -1n }))).rejects.toThrow(/amount_paid_atomic_check/);
      await expect(store.create(pendingReceipt({ status: 'refunded' as ReceiptStatus }))).rejects.toThrow(/status_check/);
    } finally {
      await database.close();
    }
  });
});
