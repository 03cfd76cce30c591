import { createTestDatabase } from '../../../test/support/postgres';
import { serviceAvailable } from '../../../test/support/services';
import { Secret } from '../../config/secret';
import { spendLogContract } from '../../../test/contracts/spend-log.contract';
import { Database } from './database';
import { PostgresSpendLog } from './postgres-spend-log';

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('PostgresSpendLog on PostgreSQL (local server)', () => {
  spendLogContract(async () => {
    const testDb = await createTestDatabase();
    const database = await Database.open({ kind: 'postgres', url: new Secret(testDb.url) });
    return {
      log: new PostgresSpendLog(database.dataSource),
      close: async () => {
        await database.close();
        await testDb.drop();
      },
    };
  });
});
