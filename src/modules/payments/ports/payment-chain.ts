import type { ExactExpectations, VerifiedTransfer } from '../domain/exact-payment';

/** Why a simulation refused the payment: the payer lacks the tokens (or lamports) to pay, or anything else. */
export type SimulationOutcome = { ok: true } | { ok: false; reason: 'insufficient-funds' | 'failed'; detail: string };

export type BroadcastFailure =
  /** The node refused the transaction (or the gateway could not co-sign it); it will not land. */
  | 'rejected'
  /** It landed with an error: the fee was paid, the funds did not move. */
  | 'failed'
  /** No confirmation before the deadline; it may still land while its blockhash lives. */
  | 'unconfirmed';

export type BroadcastOutcome =
  | { ok: true; signature: string }
  | { ok: false; reason: BroadcastFailure; signature: string | null; detail: string };

/**
 * The chain an `exact` payment is checked against and settled on. Application code reaches
 * Solana only through this port. `blockhashValid` and `simulate` reject only when the RPC cannot
 * be reached; `broadcast` never rejects.
 */
export abstract class PaymentChain {
  /** The checks that need no chain (layout, instructions, amount, recipient, mint, signatures); throws PaymentRejection. */
  abstract verifyTransfer(transactionBase64: string, expectations: ExactExpectations): VerifiedTransfer;

  /** Whether the transaction can still land: its blockhash is live, or its nonce account still holds that nonce. */
  abstract blockhashValid(transfer: Pick<VerifiedTransfer, 'recentBlockhash' | 'nonceAccount'>): Promise<boolean>;

  /** Runs the transaction (signatures not checked, so the sponsored fee payer's slot may be empty) without landing it. */
  abstract simulate(transactionBase64: string): Promise<SimulationOutcome>;

  /**
   * Sends a transaction `verifyTransfer` accepted (only such a one: a sponsored transaction is
   * co-signed by whichever of our fee payers is its account 0), once, and waits for confirmation.
   */
  abstract broadcast(transactionBase64: string): Promise<BroadcastOutcome>;
}
