import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase } from '../test/support/postgres';
import { serviceAvailable } from '../test/support/services';
import { MIGRATIONS } from './index';
import { TeamWalletConsent1764900000000 } from './1764900000000-team-wallet-consent';

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

/** Memberships from before the consent rule: the admin token's keep counting, an org key's start unconsented. */
describeWithPostgres('migration: team wallet consent', () => {
  it("marks consented only the memberships every audit entry of which is the admin token's", async () => {
    const database = await createTestDatabase();
    const before = MIGRATIONS.slice(0, MIGRATIONS.indexOf(TeamWalletConsent1764900000000));
    const open = (migrations: typeof MIGRATIONS) => new DataSource({ type: 'postgres', url: database.url, migrations, migrationsTableName: 'migrations' }).initialize();
    try {
      const old = await open(before);
      await old.runMigrations();
      const org = randomUUID();
      const [teamA, teamB] = [randomUUID(), randomUUID()];
      const key = randomUUID();
      const [byAdmin, byKey, both] = ['A'.repeat(32), 'B'.repeat(32), 'C'.repeat(32)];
      await old.query(`INSERT INTO orgs VALUES ($1, 'o', now(), now())`, [org]);
      for (const team of [teamA, teamB]) await old.query(`INSERT INTO teams VALUES ($1, $2, $3, now(), now())`, [team, org, team]);
      const added = async (team: string, wallet: string, actor: string) => {
        await old.query('INSERT INTO team_wallets VALUES ($1, $2, now())', [team, wallet]);
        await old.query(`INSERT INTO org_audit VALUES ($1, $2, $3, 'team_wallet.added', null, $4, now())`, [randomUUID(), org, actor, JSON.stringify({ wallet_address: wallet })]);
      };
      await added(teamA, byAdmin, 'admin');
      await added(teamA, byKey, `key:${key}`);
      await added(teamA, both, 'admin');
      await added(teamB, both, `key:${key}`);
      await old.destroy();

      const migrated = await open(MIGRATIONS);
      await migrated.runMigrations();
      const rows = (await migrated.query('SELECT team_id, wallet_address, consented FROM team_wallets ORDER BY wallet_address, team_id')) as Array<{ wallet_address: string; consented: boolean }>;
      expect(rows.map((row) => [row.wallet_address[0], row.consented])).toEqual([
        ['A', true],
        ['B', false],
        ['C', false],
        ['C', false],
      ]);
      await migrated.destroy();
    } finally {
      await database.drop();
    }
  });
});
