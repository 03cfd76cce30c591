import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The spend log: one row per served request. Amounts are atomic USDC; bigint holds 9.2e12 USDC. */
export class CreateSpendLog1763769600000 implements MigrationInterface {
  name = 'CreateSpendLog1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE spend_log (
        request_id uuid PRIMARY KEY,
        payer_wallet varchar(44),
        model text NOT NULL,
        provider text NOT NULL,
        tokens_in integer NOT NULL CHECK (tokens_in >= 0),
        tokens_out integer NOT NULL CHECK (tokens_out >= 0),
        amount_charged_atomic bigint NOT NULL CHECK (amount_charged_atomic >= 0),
        created_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE spend_log');
  }
}
