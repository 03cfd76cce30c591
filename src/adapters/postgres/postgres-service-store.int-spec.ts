import { serviceEntry, serviceStoreContract } from '../../../test/contracts/service-store.contract';
import { createTestDatabase } from '../../../test/support/postgres';
import { serviceAvailable } from '../../../test/support/services';
import { emptiedPgliteEachTime, migratedDataDir } from '../../../test/support/pglite-data-dir';
import { Secret } from '../../config/secret';
import { Database } from './database';
import { PostgresServiceStore } from './postgres-service-store';

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('PostgresServiceStore on PostgreSQL (local server)', () => {
  serviceStoreContract(async () => {
    const testDb = await createTestDatabase();
    const database = await Database.open({ kind: 'postgres', url: new Secret(testDb.url) });
    return {
      store: new PostgresServiceStore(database.dataSource),
      close: async () => {
        await database.close();
        await testDb.drop();
      },
    };
  });
});

describe('PostgresServiceStore on embedded PGlite', () => {
  const emptied = emptiedPgliteEachTime();
  serviceStoreContract(async () => {
    const database = await emptied();
    return { store: new PostgresServiceStore(database.dataSource), close: async () => undefined };
  });

  it('keeps registered entries across a restart on the same data directory', async () => {
    const directory = await migratedDataDir();
    const entry = serviceEntry({ priceAtomic: 123_456_789_012_345_678n });
    const first = await Database.open({ kind: 'pglite', dataDir: directory });
    try {
      expect(await new PostgresServiceStore(first.dataSource).add(entry)).toBe(true);
    } finally {
      await first.close();
    }

    const second = await Database.open({ kind: 'pglite', dataDir: directory });
    try {
      const store = new PostgresServiceStore(second.dataSource);
      expect(await store.list()).toEqual([entry]);
      expect(await store.add({ ...entry, name: 'Again' })).toBe(false);
    } finally {
      await second.close();
    }
  });

  it('refuses an internal entry, and in the schema an id outside the registry pattern or a negative price', async () => {
    const database = await Database.open({ kind: 'pglite', dataDir: await migratedDataDir() });
    const store = new PostgresServiceStore(database.dataSource);
    try {
      await expect(store.add(serviceEntry({ internal: true }))).rejects.toThrow(/never internal/);
      await expect(store.add(serviceEntry({ id: 'Upper-Case' }))).rejects.toThrow(/services_id_check/);
      await expect(store.add(serviceEntry({ priceAtomic: -1n, pricing: 'not priced' }))).rejects.toThrow(/services_price_atomic_check/);
      expect(await store.list()).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
