import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { migratedDataDir } from '../../../test/support/pglite-data-dir';
import { Database } from './database';

describe('EmbeddedPostgres', () => {
  it('runs with a 16 MB buffer cache and leaves the postgresql.conf initdb wrote as it was', async () => {
    const dataDir = await migratedDataDir();
    try {
      const conf = join(dataDir, 'pglite', 'postgresql.conf');
      const written = readFileSync(conf, 'utf8');
      const database = await Database.open({ kind: 'pglite', dataDir });
      try {
        expect(await database.dataSource.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
        // initdb's settings other than the cache still apply (the backend's own default zone is GMT).
        expect(await database.dataSource.query('SHOW timezone')).toEqual([{ TimeZone: 'UTC' }]);
      } finally {
        await database.close();
      }
      expect(readFileSync(conf, 'utf8')).toBe(written);
      expect(written).toMatch(/^shared_buffers = 128MB/m);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
