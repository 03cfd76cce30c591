import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { EscrowClaims, type EscrowClaim, type EscrowClaimCounts, type EscrowClaimStatus, type NewEscrowClaim } from '../../modules/payments/ports/escrow-claims';

/** Longest error text kept: enough to tell why, bounded whatever a provider or the chain answered. */
const ERROR_CHARS = 500;

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
  next_retry_at: Date;
  lease_until: Date | null;
  claim_signature: string | null;
  last_error: string | null;
  created_at: Date;
}

const COLUMNS = 'id, receipt_id, escrow, agent, service_id, deposit_atomic, claim_atomic, expiry_slot, status, attempts, next_retry_at, lease_until, claim_signature, last_error, created_at';
/** The same, qualified: in the lease's UPDATE … FROM, `id` is also the CTE's. */
const LEASED_COLUMNS = COLUMNS.split(', ')
  .map((column) => `c.${column}`)
  .join(', ');

/**
 * The claim queue in `escrow_claims` (migrations/1764700000000-escrow.ts). Every change is one
 * conditional statement, so instances sharing the database never both move a claim: the status a
 * change starts from is part of its WHERE, and a lease locks the rows it takes with SKIP LOCKED.
 */
export class PostgresEscrowClaims extends EscrowClaims {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async enqueue(claim: NewEscrowClaim, now: Date): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO escrow_claims (id, receipt_id, escrow, agent, service_id, deposit_atomic, claim_atomic, expiry_slot, status, next_retry_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $9, $9)
       ON CONFLICT (receipt_id) DO NOTHING
       RETURNING id`,
      [randomUUID(), claim.receiptId, claim.escrow, claim.agent, claim.serviceId, claim.depositAtomic.toString(), claim.claimAtomic.toString(), claim.expirySlot.toString(), now],
    )) as unknown[];
    return rows.length === 1;
  }

  async lease(limit: number, now: Date, leaseUntil: Date): Promise<EscrowClaim[]> {
    // One statement: the rows another instance is leasing right now are skipped, not waited for, and
    // a row it leased after this statement began fails the WHERE when re-checked under its lock.
    const rows = await updated<ClaimRow>(
      this.dataSource,
      `WITH due AS (
         SELECT id FROM escrow_claims
         WHERE (status = 'pending' AND next_retry_at <= $1) OR (status = 'in_progress' AND lease_until <= $1)
         ORDER BY created_at, id
         LIMIT $2
         FOR UPDATE SKIP LOCKED
       )
       UPDATE escrow_claims c SET status = 'in_progress', lease_until = $3, updated_at = $1
       FROM due WHERE c.id = due.id
       RETURNING ${LEASED_COLUMNS}`,
      [now, limit, leaseUntil],
    );
    // RETURNING keeps no order; uuids compare in PostgreSQL as their lowercase text does here.
    return rows.map(toClaim).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async recordAttempt(id: string, claimSignature: string): Promise<void> {
    // Only while in progress: a finished claim keeps the signature that landed.
    await this.dataSource.query(`UPDATE escrow_claims SET claim_signature = $2, updated_at = now() WHERE id = $1 AND status = 'in_progress'`, [id, claimSignature]);
  }

  async complete(id: string, claimSignature: string): Promise<boolean> {
    const rows = await updated(
      this.dataSource,
      `UPDATE escrow_claims SET status = 'completed', claim_signature = $2, lease_until = NULL, updated_at = now()
       WHERE id = $1 AND status = 'in_progress'
       RETURNING id`,
      [id, claimSignature],
    );
    return rows.length === 1;
  }

  async retry(id: string, nextRetryAt: Date, error: string): Promise<void> {
    // Never from a final status: a completed claim going back to pending would be claimed again.
    await this.dataSource.query(
      `UPDATE escrow_claims SET status = 'pending', attempts = attempts + 1, next_retry_at = $2, last_error = left($3, ${ERROR_CHARS}), lease_until = NULL, updated_at = now()
       WHERE id = $1 AND status IN ('pending', 'in_progress')`,
      [id, nextRetryAt, error],
    );
  }

  async fail(id: string, error: string): Promise<boolean> {
    const rows = await updated(
      this.dataSource,
      `UPDATE escrow_claims SET status = 'failed', last_error = left($2, ${ERROR_CHARS}), lease_until = NULL, updated_at = now()
       WHERE id = $1 AND status IN ('pending', 'in_progress')
       RETURNING id`,
      [id, error],
    );
    return rows.length === 1;
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

/** The rows an UPDATE … RETURNING returned: TypeORM answers an UPDATE with [rows, affected] rather than the rows alone. */
async function updated<T>(dataSource: DataSource, sql: string, parameters: unknown[]): Promise<T[]> {
  const [rows] = (await dataSource.query(sql, parameters)) as [T[], number];
  return rows;
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
    nextRetryAt: row.next_retry_at,
    leaseUntil: row.lease_until,
    claimSignature: row.claim_signature,
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}
