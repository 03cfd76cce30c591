import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orgs (spec 4.9; docs/decisions.md, "Enterprise authentication"): members, teams and their wallets,
 * API keys kept only as the SHA-256 of their secret, and the audit of every change. Nothing is
 * deleted, so the foreign keys keep the default NO ACTION.
 */
export class CreateOrgs1764300000000 implements MigrationInterface {
  name = 'CreateOrgs1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE orgs (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 128),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE org_members (
        org_id uuid NOT NULL REFERENCES orgs (id),
        wallet_address varchar(44) NOT NULL CHECK (char_length(wallet_address) >= 32),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at timestamptz NOT NULL,
        PRIMARY KEY (org_id, wallet_address)
      )`);
    await queryRunner.query(`
      CREATE TABLE teams (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs (id),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 128),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT teams_org_name_key UNIQUE (org_id, name)
      )`);
    await queryRunner.query(`
      CREATE TABLE team_wallets (
        team_id uuid NOT NULL REFERENCES teams (id),
        wallet_address varchar(44) NOT NULL CHECK (char_length(wallet_address) >= 32),
        created_at timestamptz NOT NULL,
        PRIMARY KEY (team_id, wallet_address)
      )`);
    // A payer's teams are looked up by its wallet when it pays.
    await queryRunner.query('CREATE INDEX team_wallets_wallet_address_idx ON team_wallets (wallet_address)');
    await queryRunner.query(`
      CREATE TABLE org_api_keys (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs (id),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 128),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        secret_hash bytea NOT NULL UNIQUE CHECK (octet_length(secret_hash) = 32),
        created_at timestamptz NOT NULL,
        revoked_at timestamptz
      )`);
    // Names are unique among an org's live keys (OrgDirectory.issueKey answers a clash), so a revoked key's name can go to its replacement.
    await queryRunner.query('CREATE UNIQUE INDEX org_api_keys_org_name_idx ON org_api_keys (org_id, name) WHERE revoked_at IS NULL');
    await queryRunner.query('CREATE INDEX org_api_keys_org_id_idx ON org_api_keys (org_id)');
    await queryRunner.query(`
      CREATE TABLE org_audit (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs (id),
        actor text NOT NULL CHECK (actor = 'admin' OR actor ~ '^key:[0-9a-f-]{36}$'),
        action text NOT NULL CHECK (action ~ '^[a-z_]+\\.[a-z_]+$'),
        before jsonb,
        after jsonb,
        at timestamptz NOT NULL
      )`);
    await queryRunner.query('CREATE INDEX org_audit_org_at_idx ON org_audit (org_id, at, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE org_audit');
    await queryRunner.query('DROP TABLE org_api_keys');
    await queryRunner.query('DROP TABLE team_wallets');
    await queryRunner.query('DROP TABLE teams');
    await queryRunner.query('DROP TABLE org_members');
    await queryRunner.query('DROP TABLE orgs');
  }
}
