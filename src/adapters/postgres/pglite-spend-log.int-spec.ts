import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptiedPgliteEachTime, migratedDataDir } from '../../../test/support/pglite-data-dir';
import { spendLogContract, spendRecord } from '../../../test/contracts/spend-log.contract';
import { MIGRATIONS } from '../../../migrations';
import { Database } from './database';
import { PostgresSpendLog } from './postgres-spend-log';

const emptyDir = (): string => mkdtempSync(join(tmpdir(), 'gw-pglite-'));

describe('PostgresSpendLog on embedded PGlite', () => {
  const emptied = emptiedPgliteEachTime();
  spendLogContract(async () => {
    const database = await emptied();
    return { log: new PostgresSpendLog(database.dataSource), close: async () => undefined };
  });

  it('keeps rows across a restart on the same data directory, and migrates only once', async () => {
    const directory = emptyDir();
    const entry = spendRecord();
    const first = await Database.open({ kind: 'pglite', dataDir: directory });
    await new PostgresSpendLog(first.dataSource).record(entry);
    await first.close();

    const second = await Database.open({ kind: 'pglite', dataDir: directory });
    try {
      expect(await new PostgresSpendLog(second.dataSource).findByRequestId(entry.requestId)).toEqual(entry);
      expect(await second.dataSource.query('SELECT name FROM migrations')).toEqual(MIGRATIONS.map((migration) => ({ name: new migration().name })));
    } finally {
      await second.close();
    }
    // Creating a cluster (initdb in WASM) and opening it twice: a few seconds alone, over 30 s beside the rest of the run.
  }, 90_000);

  it('refuses a second opener of the same data directory while the first is open', async () => {
    const directory = await migratedDataDir();
    const first = await Database.open({ kind: 'pglite', dataDir: directory });
    try {
      await expect(Database.open({ kind: 'pglite', dataDir: directory })).rejects.toThrow(
        `the embedded database in ${join(directory, 'pglite')} is in use by process ${process.pid}; stop it or set another GW_DATA_DIR`,
      );
    } finally {
      await first.close();
    }
    const again = await Database.open({ kind: 'pglite', dataDir: directory });
    await again.close();
  });

  it('takes over the lock left by a process that died', async () => {
    const directory = await migratedDataDir();
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
    mkdirSync(join(directory, 'pglite'), { recursive: true });
    writeFileSync(join(directory, 'pglite', 'gateway.pid'), String(deadPid));
    const database = await Database.open({ kind: 'pglite', dataDir: directory });
    await database.close();
  });
});
