import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Budgets (spec 2.11; docs/decisions.md, "The durable claim, receipts and the reconciler", its budget
 * seam): limits per window for a team or a payer wallet, and the reservations paid requests make
 * against them, in atomic USDC. A reservation is written before its receipt, so it has no foreign
 * key to `receipts`; a released one is deleted, so a line is only ever held or settled.
 */
export class CreateBudgets1764400000000 implements MigrationInterface {
  name = 'CreateBudgets1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE budgets (
        id uuid PRIMARY KEY,
        team_id uuid UNIQUE REFERENCES teams (id),
        wallet_address varchar(44) UNIQUE CHECK (char_length(wallet_address) >= 32),
        hourly_atomic bigint CHECK (hourly_atomic >= 0),
        daily_atomic bigint CHECK (daily_atomic >= 0),
        monthly_atomic bigint CHECK (monthly_atomic >= 0),
        updated_at timestamptz NOT NULL,
        CONSTRAINT budgets_one_subject_check CHECK ((team_id IS NULL) <> (wallet_address IS NULL))
      )`);
    await queryRunner.query(`
      CREATE TABLE budget_reservations (
        receipt_id uuid NOT NULL,
        budget_id uuid NOT NULL REFERENCES budgets (id),
        amount_atomic bigint NOT NULL CHECK (amount_atomic >= 0),
        reserved_at timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('held', 'settled')),
        PRIMARY KEY (receipt_id, budget_id)
      )`);
    // A window's use is summed per budget from the window's start.
    await queryRunner.query('CREATE INDEX budget_reservations_budget_reserved_idx ON budget_reservations (budget_id, reserved_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE budget_reservations');
    await queryRunner.query('DROP TABLE budgets');
  }
}
