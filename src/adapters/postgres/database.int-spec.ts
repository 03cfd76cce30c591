import { createTestDatabase } from '../../../test/support/postgres';
import { serviceAvailable } from '../../../test/support/services';
import { Secret } from '../../config/secret';
import { MIGRATIONS } from '../../../migrations';
import { Database } from './database';

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('Database on PostgreSQL (local server)', () => {
  it('lets replicas start together: concurrent opens migrate once, under the advisory lock', async () => {
    const testDb = await createTestDatabase();
    const url = new Secret(testDb.url);
    const databases = await Promise.all([1, 2, 3].map(() => Database.open({ kind: 'postgres', url })));
    try {
      expect(await databases[0].dataSource.query('SELECT name FROM migrations')).toEqual(MIGRATIONS.map((migration) => ({ name: new migration().name })));
    } finally {
      await Promise.all(databases.map((database) => database.close()));
      await testDb.drop();
    }
  });

  it('fails to open with the server unreachable, within the connect timeout', async () => {
    const started = Date.now();
    await expect(Database.open({ kind: 'postgres', url: new Secret('postgres://postgres@127.0.0.1:1/none') })).rejects.toThrow(/ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(6000);
  });
});
