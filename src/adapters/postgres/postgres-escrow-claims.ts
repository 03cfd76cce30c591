import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { EscrowClaims, type EscrowClaim, type EscrowClaimCounts, type EscrowClaimStatus, type NewEscrowClaim } from '../../modules/payments/ports/escrow-claims';
import { ERROR_CHARS, updated } from './sql';

/** An escrow_claims row as the driver returns it: bigint columns as decimal strings, timestamps as Dates. */
interface ClaimRow {
  id: string;
  receipt_id: string;
  escrow: string;
  agent: string;
  service_id: string;
  deposit_atomic: string;
  claim_atomic: string;
  expiry_slot: string;
  status: EscrowClaimStatus;
  attempts: number;
  due_at: Date;
  lease_until: Date | null;
  lease_holder: string | null;
  claim_signatures: string[];
  claim_signature: string | null;
  last_error: string | null;
  created_at: Date;
}

const COLUMNS =
  'id, receipt_id, escrow, agent, service_id, deposit_atomic, claim_atomic, expiry_slot, status, attempts, due_at, lease_until, lease_holder, claim_signatures, claim_signature, last_error, created_at';
/** The same, qualified: in the lease's UPDATE … FROM, `id` is also the CTE's. */
const LEASED_COLUMNS = COLUMNS.split(', ')
  .map((column) => `c.${column}`)
  .join(', ');
/** The WHERE of every move a holder makes: it still holds the claim's lease. */
const HELD = "id = $1 AND status = 'in_progress' AND lease_holder = $2";

/**
 * The claim queue in `escrow_claims` (migrations/1764700000000-escrow.ts,
 * 1764750000000-escrow-claims-under-faults.ts). Every change is one conditional statement, so
 * instances sharing the database never both move a claim: the status (and, once leased, the holder)
 * a change starts from is part of its WHERE, and a lease locks the row it takes with SKIP LOCKED.
 * Opening a claim and abandoning an unclaimed receipt both lock the receipt row first, so one of
 * them always sees what the other did.
 */
export class PostgresEscrowClaims extends EscrowClaims {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async open(claim: NewEscrowClaim, dueAt: Date): Promise<boolean> {
    // One statement: the receipt row is locked (and re-read once a concurrent abandon commits) before the insert.
    const rows = (await this.dataSource.query(
      `WITH receipt AS (SELECT id FROM receipts WHERE id = $2 AND status = 'pending' FOR UPDATE)
       INSERT INTO escrow_claims (id, receipt_id, escrow, agent, service_id, deposit_atomic, claim_atomic, expiry_slot, status, due_at, created_at, updated_at)
       SELECT $1, receipt.id, $3, $4, $5, $6, $7, $8, 'pending', $9, now(), now() FROM receipt
       ON CONFLICT (receipt_id) DO NOTHING
       RETURNING id`,
      [randomUUID(), claim.receiptId, claim.escrow, claim.agent, claim.serviceId, claim.depositAtomic.toString(), claim.claimAtomic.toString(), claim.expirySlot.toString(), dueAt],
    )) as unknown[];
    return rows.length === 1;
  }

  async withdraw(receiptId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      // The receipt row first, as `open` and `abandonUnclaimed` lock it.
      const locked = (await manager.query(`SELECT id FROM receipts WHERE id = $1 AND status = 'pending' FOR UPDATE`, [receiptId])) as unknown[];
      if (locked.length === 0) return false;
      await manager.query(`DELETE FROM escrow_claims WHERE receipt_id = $1 AND status = 'pending' AND cardinality(claim_signatures) = 0`, [receiptId]);
      const [ended] = (await manager.query(
        `UPDATE receipts SET status = 'not_charged', amount_charged_atomic = 0, settled_at = NULL
         WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM escrow_claims c WHERE c.receipt_id = receipts.id)
         RETURNING id`,
        [receiptId],
      )) as [unknown[], number];
      return ended.length === 1;
    });
  }

  async finalize(receiptId: string, claimAtomic: bigint, dueAt: Date): Promise<boolean> {
    const rows = await updated(
      this.dataSource,
      `UPDATE escrow_claims SET claim_atomic = $2, due_at = $3, updated_at = now()
       WHERE receipt_id = $1 AND status = 'pending' AND attempts = 0 AND cardinality(claim_signatures) = 0
       RETURNING id`,
      [receiptId, claimAtomic.toString(), dueAt],
    );
    return rows.length === 1;
  }

  async lease(now: Date, holder: string, leaseUntil: Date): Promise<EscrowClaim | null> {
    // One statement: a row another instance is leasing right now is skipped, not waited for, and a
    // row it leased after this statement began fails the WHERE when re-checked under its lock.
    const rows = await updated<ClaimRow>(
      this.dataSource,
      `WITH due AS (
         SELECT id FROM escrow_claims
         WHERE (status = 'pending' AND due_at <= $1) OR (status = 'in_progress' AND lease_until <= $1)
         ORDER BY due_at, created_at, id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       )
       UPDATE escrow_claims c SET status = 'in_progress', lease_holder = $2, lease_until = $3, updated_at = $1
       FROM due WHERE c.id = due.id
       RETURNING ${LEASED_COLUMNS}`,
      [now, holder, leaseUntil],
    );
    return rows.length === 0 ? null : toClaim(rows[0]);
  }

  async renew(id: string, holder: string, leaseUntil: Date): Promise<boolean> {
    return (await updated(this.dataSource, `UPDATE escrow_claims SET lease_until = $3, updated_at = now() WHERE ${HELD} RETURNING id`, [id, holder, leaseUntil])).length === 1;
  }

  async recordAttempt(id: string, holder: string, claimSignature: string): Promise<boolean> {
    const rows = await updated(this.dataSource, `UPDATE escrow_claims SET claim_signatures = array_append(claim_signatures, $3), updated_at = now() WHERE ${HELD} RETURNING id`, [
      id,
      holder,
      claimSignature,
    ]);
    return rows.length === 1;
  }

  async complete(id: string, holder: string, claimSignature: string): Promise<boolean> {
    const rows = await updated(
      this.dataSource,
      `UPDATE escrow_claims SET status = 'completed', claim_signature = $3, lease_until = NULL, lease_holder = NULL, updated_at = now() WHERE ${HELD} RETURNING id`,
      [id, holder, claimSignature],
    );
    return rows.length === 1;
  }

  async retry(id: string, holder: string, dueAt: Date, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE escrow_claims SET status = 'pending', attempts = attempts + 1, due_at = $3, last_error = left($4, ${ERROR_CHARS}), lease_until = NULL, lease_holder = NULL, updated_at = now()
       WHERE ${HELD}`,
      [id, holder, dueAt, error],
    );
  }

  async fail(id: string, holder: string, error: string): Promise<boolean> {
    const rows = await updated(
      this.dataSource,
      `UPDATE escrow_claims SET status = 'failed', last_error = left($3, ${ERROR_CHARS}), lease_until = NULL, lease_holder = NULL, updated_at = now() WHERE ${HELD} RETURNING id`,
      [id, holder, error],
    );
    return rows.length === 1;
  }

  async abandonUnclaimed(createdBefore: Date, limit: number): Promise<string[]> {
    return this.dataSource.transaction(async (manager) => {
      // A receipt whose claim is being opened right now is locked by that statement: skipped, and its claim written.
      const locked = (await manager.query(
        `SELECT r.id FROM receipts r
         WHERE r.status = 'pending' AND r.scheme = 'escrow' AND r.created_at < $1
           AND NOT EXISTS (SELECT 1 FROM escrow_claims c WHERE c.receipt_id = r.id)
         ORDER BY r.created_at
         LIMIT $2
         FOR UPDATE OF r SKIP LOCKED`,
        [createdBefore, limit],
      )) as { id: string }[];
      if (locked.length === 0) return [];
      // A second statement, so a fresh snapshot taken under the locks: a claim opened just before them is seen here.
      const [rows] = (await manager.query(
        `UPDATE receipts SET status = 'not_charged', amount_charged_atomic = 0, settled_at = NULL
         WHERE id = ANY($1::uuid[]) AND status = 'pending' AND NOT EXISTS (SELECT 1 FROM escrow_claims c WHERE c.receipt_id = receipts.id)
         RETURNING id`,
        [locked.map((row) => row.id)],
      )) as [{ id: string }[], number];
      return rows.map((row) => row.id);
    });
  }

  async endedWithPendingReceipt(limit: number): Promise<EscrowClaim[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${LEASED_COLUMNS} FROM escrow_claims c JOIN receipts r ON r.id = c.receipt_id
       WHERE c.status IN ('completed', 'failed') AND r.status = 'pending'
       ORDER BY c.created_at
       LIMIT $1`,
      [limit],
    )) as ClaimRow[];
    return rows.map(toClaim);
  }

  async counts(): Promise<EscrowClaimCounts> {
    const rows = (await this.dataSource.query('SELECT status, count(*)::int AS n FROM escrow_claims GROUP BY status')) as { status: EscrowClaimStatus; n: number }[];
    const count = (status: EscrowClaimStatus): number => rows.find((row) => row.status === status)?.n ?? 0;
    return { pending: count('pending'), inProgress: count('in_progress'), failed: count('failed'), completed: count('completed') };
  }

  async findByReceipt(receiptId: string): Promise<EscrowClaim | null> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM escrow_claims WHERE receipt_id = $1`, [receiptId])) as ClaimRow[];
    return rows.length === 0 ? null : toClaim(rows[0]);
  }

  async bar(wallet: string, reason: string, now: Date): Promise<void> {
    // A wallet barred again keeps when it was first barred, with the latest reason.
    await this.dataSource.query(
      `INSERT INTO escrow_barred_wallets (wallet, reason, barred_at) VALUES ($1, $2, $3)
       ON CONFLICT (wallet) DO UPDATE SET reason = EXCLUDED.reason, barred_at = LEAST(escrow_barred_wallets.barred_at, EXCLUDED.barred_at)`,
      [wallet, reason, now],
    );
  }

  async isBarred(wallet: string): Promise<boolean> {
    const rows = (await this.dataSource.query('SELECT 1 FROM escrow_barred_wallets WHERE wallet = $1', [wallet])) as unknown[];
    return rows.length > 0;
  }
}

function toClaim(row: ClaimRow): EscrowClaim {
  return {
    id: row.id,
    receiptId: row.receipt_id,
    escrow: row.escrow,
    agent: row.agent,
    serviceId: row.service_id,
    depositAtomic: BigInt(row.deposit_atomic),
    claimAtomic: BigInt(row.claim_atomic),
    expirySlot: BigInt(row.expiry_slot),
    status: row.status,
    attempts: row.attempts,
    dueAt: row.due_at,
    leaseUntil: row.lease_until,
    leaseHolder: row.lease_holder,
    claimSignatures: row.claim_signatures,
    claimSignature: row.claim_signature,
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}
