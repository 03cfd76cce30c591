import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Channels (docs/decisions.md, "Channels"; src/modules/payments/ports/channel-ledger.ts):
 * the channels, their append-only vouchers and their close jobs. One channel per funding transfer
 * (the unique funding signature), one voucher per cumulative (the key), never drawn past the
 * deposit (the check), and one close job per channel (the key), leased like escrow claims.
 */
export class Channels1765000000000 implements MigrationInterface {
  name = 'Channels1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE channels (
        id varchar(44) PRIMARY KEY,
        agent_wallet varchar(44) NOT NULL,
        session_key varchar(44) NOT NULL,
        custody varchar(44) NOT NULL,
        deposited_atomic bigint NOT NULL CHECK (deposited_atomic >= 0),
        last_cumulative_atomic bigint NOT NULL DEFAULT 0 CHECK (last_cumulative_atomic >= 0 AND last_cumulative_atomic <= deposited_atomic),
        status text NOT NULL CHECK (status IN ('opening', 'open', 'closing', 'closed')),
        funding_signature text NOT NULL UNIQUE,
        open_digest text NOT NULL,
        funding_receipt_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_draw_at timestamptz,
        close_signature text,
        CHECK ((status = 'closed') = (close_signature IS NOT NULL))
      )`);
    // What the reconciler, the idle sweep and the custody check look for.
    await queryRunner.query("CREATE INDEX channels_opening_idx ON channels (created_at) WHERE status = 'opening'");
    await queryRunner.query("CREATE INDEX channels_idle_idx ON channels ((COALESCE(last_draw_at, created_at))) WHERE status = 'open'");
    await queryRunner.query("CREATE INDEX channels_custody_idx ON channels (custody) WHERE status <> 'closed'");
    await queryRunner.query(`
      CREATE TABLE channel_vouchers (
        channel_id varchar(44) NOT NULL REFERENCES channels (id),
        cumulative_atomic bigint NOT NULL,
        amount_atomic bigint NOT NULL CHECK (amount_atomic > 0),
        expiry_slot bigint NOT NULL,
        nonce bigint NOT NULL,
        request_digest text NOT NULL,
        signature text NOT NULL,
        receipt_id uuid NOT NULL REFERENCES receipts (id),
        created_at timestamptz NOT NULL,
        PRIMARY KEY (channel_id, cumulative_atomic)
      )`);
    await queryRunner.query(`
      CREATE TABLE channel_closes (
        channel_id varchar(44) PRIMARY KEY REFERENCES channels (id),
        status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
        attempts int NOT NULL DEFAULT 0,
        due_at timestamptz NOT NULL,
        lease_until timestamptz,
        lease_holder text,
        sent jsonb NOT NULL DEFAULT '[]',
        last_error text,
        created_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    // What a lease looks for: due pending jobs, and in-progress ones whose lease lapsed (an instance died).
    await queryRunner.query('CREATE INDEX channel_closes_due_idx ON channel_closes (status, due_at)');
    await queryRunner.query("CREATE INDEX channel_closes_lapsed_idx ON channel_closes (lease_until) WHERE status = 'in_progress'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE channel_closes');
    await queryRunner.query('DROP TABLE channel_vouchers');
    await queryRunner.query('DROP TABLE channels');
  }
}
