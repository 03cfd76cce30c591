import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The escrow scheme (docs/decisions.md, "Escrow"; src/modules/payments/ports/escrow-claims.ts): a
 * receipt keeps where its deposit sits and the claim that landed, and the claims themselves wait in a
 * durable queue worked by every instance. One claim per receipt (the unique receipt_id), never more
 * than the deposit (the check), so a repeated enqueue or a wrong cost cannot claim twice or too much.
 */
export class Escrow1764700000000 implements MigrationInterface {
  name = 'Escrow1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE receipts
      ADD COLUMN escrow_address varchar(44),
      ADD COLUMN escrow_expiry_slot bigint,
      ADD COLUMN escrow_claim_signature text,
      ADD CONSTRAINT receipts_escrow_check CHECK ((escrow_address IS NULL) = (escrow_expiry_slot IS NULL))`);
    await queryRunner.query(`
      CREATE TABLE escrow_claims (
        id uuid PRIMARY KEY,
        receipt_id uuid NOT NULL UNIQUE,
        escrow varchar(44) NOT NULL,
        agent varchar(44) NOT NULL,
        service_id text NOT NULL,
        deposit_atomic bigint NOT NULL CHECK (deposit_atomic >= 0),
        claim_atomic bigint NOT NULL CHECK (claim_atomic >= 0 AND claim_atomic <= deposit_atomic),
        expiry_slot bigint NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'failed')),
        attempts int NOT NULL DEFAULT 0,
        next_retry_at timestamptz NOT NULL,
        lease_until timestamptz,
        claim_signature text,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // What a lease looks for: due pending claims, and in-progress ones whose lease lapsed (an instance died).
    await queryRunner.query('CREATE INDEX escrow_claims_due_idx ON escrow_claims (status, next_retry_at)');
    await queryRunner.query("CREATE INDEX escrow_claims_lapsed_idx ON escrow_claims (lease_until) WHERE status = 'in_progress'");
    await queryRunner.query(`
      CREATE TABLE escrow_barred_wallets (
        wallet varchar(44) PRIMARY KEY,
        reason text NOT NULL,
        barred_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE escrow_barred_wallets');
    await queryRunner.query('DROP TABLE escrow_claims');
    await queryRunner.query('ALTER TABLE receipts DROP CONSTRAINT receipts_escrow_check, DROP COLUMN escrow_address, DROP COLUMN escrow_expiry_slot, DROP COLUMN escrow_claim_signature');
  }
}
