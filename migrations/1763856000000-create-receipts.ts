import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Receipts (spec 2.10; docs/decisions.md, "Settlement and receipts"): written pending when a payment is accepted,
 * completed once when settlement ends. Amounts are atomic USDC.
 */
export class CreateReceipts1763856000000 implements MigrationInterface {
  name = 'CreateReceipts1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE receipts (
        id uuid PRIMARY KEY,
        status text NOT NULL CHECK (status IN ('pending', 'settled', 'failed', 'not_charged')),
        scheme text NOT NULL,
        network text NOT NULL,
        asset varchar(44) NOT NULL,
        payer_wallet varchar(44) NOT NULL,
        pay_to varchar(44) NOT NULL,
        transaction_signature text NOT NULL,
        amount_quoted_atomic bigint NOT NULL CHECK (amount_quoted_atomic >= 0),
        amount_paid_atomic bigint NOT NULL CHECK (amount_paid_atomic >= 0),
        amount_charged_atomic bigint NOT NULL CHECK (amount_charged_atomic >= 0),
        endpoint text NOT NULL,
        model text,
        request_id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        settled_at timestamptz
      )`);
    // Not unique: a payment whose provider failed is released and may be retried, leaving a second receipt.
    await queryRunner.query('CREATE INDEX receipts_transaction_signature_idx ON receipts (transaction_signature)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE receipts');
  }
}
