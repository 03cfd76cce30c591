import { randomUUID } from 'node:crypto';
import { orgStoreContract } from '../../../test/contracts/org-store.contract';
import { createTestDatabase } from '../../../test/support/postgres';
import { serviceAvailable } from '../../../test/support/services';
import { emptiedPgliteEachTime, migratedDataDir } from '../../../test/support/pglite-data-dir';
import { Secret } from '../../config/secret';
import type { OrgRole } from '../../modules/orgs/domain/org-role';
import { Database } from './database';
import { PostgresOrgApiKeys, PostgresOrgStore } from './postgres-org-store';

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

const openPglite = async (): Promise<Database> => Database.open({ kind: 'pglite', dataDir: await migratedDataDir() });

describeWithPostgres('PostgresOrgStore on PostgreSQL (local server)', () => {
  orgStoreContract(async () => {
    const testDb = await createTestDatabase();
    const database = await Database.open({ kind: 'postgres', url: new Secret(testDb.url) });
    return {
      store: new PostgresOrgStore(database.dataSource),
      keys: new PostgresOrgApiKeys(database.dataSource),
      close: async () => {
        await database.close();
        await testDb.drop();
      },
    };
  });
});

describe('PostgresOrgStore on embedded PGlite', () => {
  const emptied = emptiedPgliteEachTime();
  orgStoreContract(async () => {
    const database = await emptied();
    return { store: new PostgresOrgStore(database.dataSource), keys: new PostgresOrgApiKeys(database.dataSource), close: async () => undefined };
  });

  it('refuses, in the schema, names outside 1 to 128 characters, roles outside the three and short wallet addresses', async () => {
    const database = await openPglite();
    const store = new PostgresOrgStore(database.dataSource);
    const now = new Date();
    const org = { id: randomUUID(), name: 'Acme', createdAt: now, updatedAt: now };
    try {
      await expect(store.createOrg({ ...org, name: 'x'.repeat(129) }, '11111111111111111111111111111111', { kind: 'admin' })).rejects.toThrow(/orgs_name_check/);
      await store.createOrg(org, '11111111111111111111111111111111', { kind: 'admin' });
      await expect(store.addMember({ orgId: org.id, walletAddress: '1111', role: 'member', createdAt: now }, { kind: 'admin' })).rejects.toThrow(/wallet_address_check/);
      await expect(store.addMember({ orgId: org.id, walletAddress: '22222222222222222222222222222222', role: 'root' as OrgRole, createdAt: now }, { kind: 'admin' })).rejects.toThrow(/role_check/);
      await expect(store.createTeam({ id: randomUUID(), orgId: org.id, name: '', createdAt: now, updatedAt: now }, { kind: 'admin' })).rejects.toThrow(/teams_name_check/);
      expect((await store.audit(org.id, { offset: 0, limit: 10 })).total).toBe(2);
    } finally {
      await database.close();
    }
  });
});
