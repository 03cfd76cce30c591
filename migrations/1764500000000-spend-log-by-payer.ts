import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Wallet stats read a payer's charged requests by time: an index for that walk (docs/decisions.md, "Wallet stats"). */
export class SpendLogByPayer1764500000000 implements MigrationInterface {
  name = 'SpendLogByPayer1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX spend_log_payer_created_idx ON spend_log (payer_wallet, created_at) WHERE amount_charged_atomic > 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX spend_log_payer_created_idx');
  }
}
