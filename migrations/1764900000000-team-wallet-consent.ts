import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A wallet joins a team only with its owner's word (docs/decisions.md, "Whose word makes a team"):
 * each membership records whether it was consented (the wallet's signature, or the operator's
 * admin token). Memberships from before this rule were added with nobody's signature; those the
 * admin token added (the audit says so: every `team_wallet.added` of that wallet in that org was
 * the admin's) keep counting; any an org key added start unconsented. A wallet that leaves on its
 * own word is audited as `wallet:<address>`.
 */
export class TeamWalletConsent1764900000000 implements MigrationInterface {
  name = 'TeamWalletConsent1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE team_wallets ADD COLUMN consented boolean NOT NULL DEFAULT false');
    await queryRunner.query(`
      UPDATE team_wallets w SET consented = true
      FROM teams t
      WHERE t.id = w.team_id
        AND EXISTS (SELECT 1 FROM org_audit a WHERE a.org_id = t.org_id AND a.action = 'team_wallet.added' AND a.after->>'wallet_address' = w.wallet_address AND a.actor = 'admin')
        AND NOT EXISTS (SELECT 1 FROM org_audit a WHERE a.org_id = t.org_id AND a.action = 'team_wallet.added' AND a.after->>'wallet_address' = w.wallet_address AND a.actor <> 'admin')`);
    await queryRunner.query('ALTER TABLE team_wallets ALTER COLUMN consented DROP DEFAULT');
    // Team budgets and stats follow only consented memberships of a paying wallet.
    await queryRunner.query('CREATE INDEX team_wallets_consented_wallet_idx ON team_wallets (wallet_address) WHERE consented');
    await queryRunner.query('ALTER TABLE org_audit DROP CONSTRAINT org_audit_actor_check');
    await queryRunner.query(`ALTER TABLE org_audit ADD CONSTRAINT org_audit_actor_check CHECK (actor = 'admin' OR actor ~ '^key:[0-9a-f-]{36}$' OR actor ~ '^wallet:[1-9A-HJ-NP-Za-km-z]{32,44}$')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM org_audit WHERE actor LIKE 'wallet:%'`);
    await queryRunner.query('ALTER TABLE org_audit DROP CONSTRAINT org_audit_actor_check');
    await queryRunner.query(`ALTER TABLE org_audit ADD CONSTRAINT org_audit_actor_check CHECK (actor = 'admin' OR actor ~ '^key:[0-9a-f-]{36}$')`);
    await queryRunner.query('DROP INDEX team_wallets_consented_wallet_idx');
    await queryRunner.query('ALTER TABLE team_wallets DROP COLUMN consented');
  }
}
