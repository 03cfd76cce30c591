import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's audit (GET /v1/audit; docs/decisions.md, "The operator's audit"): changes outside
 * any org, wallet budgets and service registrations, in the org audit's shape.
 */
export class OperatorAudit1764800000000 implements MigrationInterface {
  name = 'OperatorAudit1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE operator_audit (
        id uuid PRIMARY KEY,
        actor text NOT NULL CHECK (actor = 'admin' OR actor ~ '^key:[0-9a-f-]{36}$'),
        action text NOT NULL CHECK (action ~ '^[a-z_]+\\.[a-z_]+$'),
        before jsonb,
        after jsonb,
        at timestamptz NOT NULL
      )`);
    await queryRunner.query('CREATE INDEX operator_audit_at_idx ON operator_audit (at, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE operator_audit');
  }
}
