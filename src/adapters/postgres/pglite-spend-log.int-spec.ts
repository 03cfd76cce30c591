import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spendLogContract, spendRecord } from '../../../test/contracts/spend-log.contract';
import { Database } from './database';
import { PostgresSpendLog } from './postgres-spend-log';

const dataDir = (): string => mkdtempSync(join(tmpdir(), 'gw-pglite-'));

describe('PostgresSpendLog on embedded PGlite', () => {
  spendLogContract(async () => {
    const database = await Database.open({ kind: 'pglite', dataDir: dataDir() });
    return { log: new PostgresSpendLog(database.dataSource), close: () => database.close() };
  });

  it('keeps rows across a restart on the same data directory, and migrates only once', async () => {
    const directory = dataDir();
    const entry = spendRecord();
    const first = await Database.open({ kind: 'pglite', dataDir: directory });
    await new PostgresSpendLog(first.dataSource).record(entry);
    await first.close();

    const second = await Database.open({ kind: 'pglite', dataDir: directory });
    try {
      expect(await new PostgresSpendLog(second.dataSource).findByRequestId(entry.requestId)).toEqual(entry);
      expect(await second.dataSource.query('SELECT name FROM migrations')).toEqual([{ name: 'CreateSpendLog1763769600000' }]);
    } finally {
      await second.close();
    }
  });
});
