/** Spec 3.2 and docs/decisions.md, "Escrow": a claim row's life. */
export type EscrowClaimStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/** What to claim from one escrow whose answer has begun. */
export interface NewEscrowClaim {
  /** The receipt of the escrow payment; one claim per receipt. */
  receiptId: string;
  /** The escrow account (PDA), base58. */
  escrow: string;
  agent: string;
  /** The deposit's service id, base64 of 32 bytes. */
  serviceId: string;
  depositAtomic: bigint;
  /** What to claim, never above the deposit: the quote until the answer ends, then its real cost. */
  claimAtomic: bigint;
  expirySlot: bigint;
}

export interface EscrowClaim extends NewEscrowClaim {
  id: string;
  status: EscrowClaimStatus;
  /** Attempts that failed so far. */
  attempts: number;
  /** When the claim may be worked: once its answer could no longer be running, then when it ended, then after each failed attempt's backoff. */
  dueAt: Date;
  /** While `in_progress`: until when `leaseHolder` may work on it. */
  leaseUntil: Date | null;
  leaseHolder: string | null;
  /** Every claim transaction sent for it, oldest first, each recorded before its send: the chain is asked about all of them. */
  claimSignatures: string[];
  /** The claim transaction that landed, once `completed`. */
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
 * The durable claim queue (PostgreSQL or PGlite), beside the receipts it finishes. Several
 * instances work it at once: a lease moves one claim to `in_progress` for one holder, who renews it
 * while working; every later move names the holder, so an instance whose lease lapsed (it stalled,
 * or died) can no longer move a claim another instance has taken.
 */
export abstract class EscrowClaims {
  /**
   * Writes the claim of an answer whose first content is going out, due at `dueAt`. Only while its
   * receipt is pending: atomically against `abandonUnclaimed`, so a receipt is never both ended
   * uncharged and claimed. False when the receipt is no longer pending, or already has a claim.
   */
  abstract open(claim: NewEscrowClaim, dueAt: Date): Promise<boolean>;

  /**
   * The answer did not begin after all (the claim's write failed, or its outcome is unknown): the
   * claim, if it was written and never attempted, is removed and the receipt made `not_charged`, in
   * one transaction. True when this call ended the receipt.
   */
  abstract withdraw(receiptId: string): Promise<boolean>;

  /** The answer ended: what to claim, due at `dueAt`. Only a claim still pending and never attempted; false otherwise. */
  abstract finalize(receiptId: string, claimAtomic: bigint, dueAt: Date): Promise<boolean>;

  /** The oldest due claim (pending with `dueAt <= now`, or in progress with a lapsed lease), in progress for `holder` until `leaseUntil`; null when none is due. */
  abstract lease(now: Date, holder: string, leaseUntil: Date): Promise<EscrowClaim | null>;

  /** Extends the holder's lease; false when it no longer holds it. */
  abstract renew(id: string, holder: string, leaseUntil: Date): Promise<boolean>;

  /** Adds the claim transaction about to be sent, before the send; false when the holder no longer holds the lease (then it must not send). */
  abstract recordAttempt(id: string, holder: string, claimSignature: string): Promise<boolean>;

  /** The claim landed: `completed`. False when the holder no longer holds it. */
  abstract complete(id: string, holder: string, claimSignature: string): Promise<boolean>;

  /** Back to `pending`, due at `dueAt`, one more attempt counted; nothing when the holder no longer holds it. */
  abstract retry(id: string, holder: string, dueAt: Date, error: string): Promise<void>;

  /** The claim will never land (rejected by the program, or its escrow gone unclaimed): `failed`. False when the holder no longer holds it. */
  abstract fail(id: string, holder: string, error: string): Promise<boolean>;

  /**
   * Pending escrow receipts created before `createdBefore` that never got a claim (their answer
   * never began), moved to `not_charged`, at most `limit`; returns their ids.
   */
  abstract abandonUnclaimed(createdBefore: Date, limit: number): Promise<string[]>;

  /** Claims that ended (`completed` or `failed`) while their receipt is still pending (the receipt's write after the claim's was lost), at most `limit`. */
  abstract endedWithPendingReceipt(limit: number): Promise<EscrowClaim[]>;

  abstract counts(): Promise<EscrowClaimCounts>;

  abstract findByReceipt(receiptId: string): Promise<EscrowClaim | null>;

  /** Bars a wallet from escrow (a claim crediting it was rejected by the program). */
  abstract bar(wallet: string, reason: string, now: Date): Promise<void>;

  abstract isBarred(wallet: string): Promise<boolean>;
}
