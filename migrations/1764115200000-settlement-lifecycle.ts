import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The settlement lifecycle (docs/decisions.md, "Money moves exactly once (1 of 2)"): a receipt keeps what the payer received,
 * when and what was broadcast (for the reconciler), and is the durable claim on its payment: a
 * unique index on the replay key over receipts that are not `not_charged`, so no two instances
 * can accept one payment whatever Redis is doing. The lease table lets one replica reconcile.
 */
export class SettlementLifecycle1764115200000 implements MigrationInterface {
  name = 'SettlementLifecycle1764115200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE receipts
      ADD COLUMN delivery text CHECK (delivery IN ('complete', 'partial', 'client_disconnected')),
      ADD COLUMN broadcast_at timestamptz,
      ADD COLUMN replay_key text,
      ADD COLUMN signed_transaction text`);
    // Receipts written before this migration have no key and stay outside the index.
    await queryRunner.query("UPDATE receipts SET replay_key = 'legacy:' || id, signed_transaction = '' WHERE replay_key IS NULL");
    await queryRunner.query('ALTER TABLE receipts ALTER COLUMN replay_key SET NOT NULL, ALTER COLUMN signed_transaction SET NOT NULL');
    await queryRunner.query("CREATE UNIQUE INDEX receipts_payment_claim_idx ON receipts (replay_key) WHERE status <> 'not_charged'");
    await queryRunner.query("CREATE INDEX receipts_pending_idx ON receipts (created_at) WHERE status = 'pending'");
    await queryRunner.query(`
      CREATE TABLE leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE leases');
    await queryRunner.query('DROP INDEX receipts_pending_idx');
    await queryRunner.query('DROP INDEX receipts_payment_claim_idx');
    await queryRunner.query('ALTER TABLE receipts DROP COLUMN delivery, DROP COLUMN broadcast_at, DROP COLUMN replay_key, DROP COLUMN signed_transaction');
  }
}
