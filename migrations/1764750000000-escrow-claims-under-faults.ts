import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Escrow claims under faults (docs/decisions.md, "Escrow"): a claim row is written when its answer
 * begins and is due later (`next_retry_at` becomes `due_at`, the one time a claim waits for); a
 * lease names its holder, so an instance whose lease lapsed cannot move a claim another has taken;
 * every attempt's signature is kept (`claim_signatures`), so the outcome is read from all of them,
 * while `claim_signature` is the one that landed.
 */
export class EscrowClaimsUnderFaults1764750000000 implements MigrationInterface {
  name = 'EscrowClaimsUnderFaults1764750000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE escrow_claims RENAME COLUMN next_retry_at TO due_at');
    await queryRunner.query("ALTER TABLE escrow_claims ADD COLUMN lease_holder text, ADD COLUMN claim_signatures text[] NOT NULL DEFAULT '{}'");
    await queryRunner.query('UPDATE escrow_claims SET claim_signatures = ARRAY[claim_signature] WHERE claim_signature IS NOT NULL');
    await queryRunner.query("UPDATE escrow_claims SET claim_signature = NULL WHERE status <> 'completed'");
    // What the reconciler looks for: pending escrow receipts, to find those that never got a claim.
    await queryRunner.query("CREATE INDEX receipts_pending_escrow_idx ON receipts (created_at) WHERE status = 'pending' AND scheme = 'escrow'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX receipts_pending_escrow_idx');
    await queryRunner.query('UPDATE escrow_claims SET claim_signature = claim_signatures[array_length(claim_signatures, 1)] WHERE claim_signature IS NULL');
    await queryRunner.query('ALTER TABLE escrow_claims DROP COLUMN claim_signatures, DROP COLUMN lease_holder');
    await queryRunner.query('ALTER TABLE escrow_claims RENAME COLUMN due_at TO next_retry_at');
  }
}
