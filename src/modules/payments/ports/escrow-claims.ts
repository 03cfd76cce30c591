/** Spec 3.2 and docs/decisions.md, "Escrow": a claim row's life. */
export type EscrowClaimStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/** What to claim from one escrow once its answer was delivered. */
export interface NewEscrowClaim {
  /** The receipt of the escrow payment; one claim per receipt. */
  receiptId: string;
  /** The escrow account (PDA), base58. */
  escrow: string;
  agent: string;
  /** The deposit's service id, base64 of 32 bytes. */
  serviceId: string;
  depositAtomic: bigint;
  /** The real cost to claim, never above the deposit. */
  claimAtomic: bigint;
  expirySlot: bigint;
}

export interface EscrowClaim extends NewEscrowClaim {
  id: string;
  status: EscrowClaimStatus;
  /** Attempts that failed so far. */
  attempts: number;
  nextRetryAt: Date;
  /** While `in_progress`: until when the instance that leased it may work on it. */
  leaseUntil: Date | null;
  /** The last claim transaction sent (recorded before the send), so whoever works the claim next can ask the chain about it first. */
  claimSignature: string | null;
  lastError: string | null;
  createdAt: Date;
}

export interface EscrowClaimCounts {
  pending: number;
  inProgress: number;
  failed: number;
  completed: number;
}

/**
 * The durable claim queue (PostgreSQL or PGlite). Several instances work it at once: a lease moves
 * a claim to `in_progress` for one of them (rows locked with SKIP LOCKED), and a claim whose lease
 * lapsed is due again, so an instance that died never strands one.
 */
export abstract class EscrowClaims {
  /** Queues a claim; a second one for the same receipt is ignored (false). */
  abstract enqueue(claim: NewEscrowClaim, now: Date): Promise<boolean>;

  /**
   * Up to `limit` due claims (pending with `nextRetryAt <= now`, or in progress with a lapsed
   * lease), oldest first, moved to `in_progress` with `leaseUntil`.
   */
  abstract lease(limit: number, now: Date, leaseUntil: Date): Promise<EscrowClaim[]>;

  /** Records the claim transaction about to be sent (before the send). */
  abstract recordAttempt(id: string, claimSignature: string): Promise<void>;

  /** The claim landed: `completed`. False when it was not in progress (another instance finished it). */
  abstract complete(id: string, claimSignature: string): Promise<boolean>;

  /** Back to `pending` until `nextRetryAt`, one more attempt counted. */
  abstract retry(id: string, nextRetryAt: Date, error: string): Promise<void>;

  /** The claim will never land (rejected by the program, or its escrow expired): `failed`. False when it was final already. */
  abstract fail(id: string, error: string): Promise<boolean>;

  abstract counts(): Promise<EscrowClaimCounts>;

  abstract findByReceipt(receiptId: string): Promise<EscrowClaim | null>;

  /** Bars a wallet from escrow (a claim crediting it was rejected by the program). */
  abstract bar(wallet: string, reason: string, now: Date): Promise<void>;

  abstract isBarred(wallet: string): Promise<boolean>;
}
