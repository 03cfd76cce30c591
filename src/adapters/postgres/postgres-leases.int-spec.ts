import { createTestDatabase } from '../../../test/support/postgres';
import { serviceAvailable } from '../../../test/support/services';
import { Secret } from '../../config/secret';
import { Database } from './database';
import { PostgresLeases } from './postgres-leases';

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('PostgresLeases on PostgreSQL (local server)', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let leases: PostgresLeases;

  beforeAll(async () => {
    const testDb = await createTestDatabase();
    drop = testDb.drop;
    database = await Database.open({ kind: 'postgres', url: new Secret(testDb.url) });
    leases = new PostgresLeases(database.dataSource);
  });
  afterAll(async () => {
    await database.close();
    await drop();
  });

  it('gives a lease to one holder at a time, renews it for that holder, and hands it over once expired or released', async () => {
    expect(await leases.acquire('worker', 'a', 300)).toBe(true);
    expect(await leases.acquire('worker', 'b', 300)).toBe(false);
    expect(await leases.acquire('worker', 'a', 300)).toBe(true);
    expect(await leases.acquire('other', 'b', 300)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await leases.acquire('worker', 'b', 60_000)).toBe(true);
    expect(await leases.acquire('worker', 'a', 60_000)).toBe(false);
    await leases.release('worker', 'a'); // not a's to give up
    expect(await leases.acquire('worker', 'a', 60_000)).toBe(false);
    await leases.release('worker', 'b');
    expect(await leases.acquire('worker', 'a', 60_000)).toBe(true);
  });

  it('lets exactly one of many concurrent claimants win', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => leases.acquire('race', `holder-${i}`, 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
