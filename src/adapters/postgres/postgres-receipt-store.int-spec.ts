import { createTestDatabase } from '../../../test/support/postgres';
import { serviceAvailable } from '../../../test/support/services';
import { Secret } from '../../config/secret';
import { receiptStoreContract } from '../../../test/contracts/receipt-store.contract';
import { Database } from './database';
import { PostgresReceiptStore } from './postgres-receipt-store';

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('PostgresReceiptStore on PostgreSQL (local server)', () => {
  receiptStoreContract(async () => {
    const testDb = await createTestDatabase();
    const database = await Database.open({ kind: 'postgres', url: new Secret(testDb.url) });
    return {
      store: new PostgresReceiptStore(database.dataSource),
      close: async () => {
        await database.close();
        await testDb.drop();
      },
    };
  });
});
