import type { ExactExpectations, VerifiedTransfer } from '../domain/exact-payment';

/**
 * What a simulation found: what the transfer's authority could still move from the watched token
 * account afterwards (its balance for the owner, at most the remaining allowance for a delegate;
 * null when the node did not return the account), or why it refused the payment: the payer lacks
 * the tokens (or lamports) to pay, or anything else.
 */
export type SimulationOutcome = { ok: true; spendableAfter: bigint | null } | { ok: false; reason: 'insufficient-funds' | 'blockhash-expired' | 'failed'; detail: string };

/** The token account a simulation reads afterwards, and who spends from it. */
export interface WatchedSource {
  tokenAccount: string;
  authority: string;
}

/** The cluster's newest blockhash, the last block height at which it can land, and the current block height. */
export interface BlockhashView {
  blockhash: string;
  lastValidBlockHeight: number;
  blockHeight: number;
}

/** A payment transaction ready to send: co-signed by our fee payer when sponsored. */
export interface PreparedTransaction {
  /** Base64 wire bytes, identical at every (re)broadcast. */
  signedTransaction: string;
  /** Its id: the first signature, base58. */
  signature: string;
}

export type SendOutcome =
  /** The node took it. */
  | { kind: 'sent' }
  /** The answer was lost (timeout, transport): the node may have it, so it counts as broadcast. */
  | { kind: 'unknown'; detail: string }
  /** It already had a status before we sent it: someone (the payer) broadcast it first. */
  | { kind: 'on-chain' }
  /** The node refused it, preflight included: it will not land and nobody paid a fee. */
  | { kind: 'rejected'; detail: string };

/** What became of a sent transaction within the confirmation window. */
export type ConfirmOutcome = 'confirmed' | 'failed' | 'unconfirmed';

/** A transaction's state on chain, history included: landed, landed with an error, seen but not yet confirmed, or unknown. */
export type ChainStatus = 'confirmed' | 'failed' | 'processing' | 'absent';

/** How long a transaction can still land: what `blockhashValid` needs, read back from its bytes. */
export interface TransactionLife {
  signature: string;
  recentBlockhash: string;
  nonceAccount: string | null;
}

/**
 * The chain an `exact` payment is checked against and settled on. Application code reaches
 * Solana only through this port. `blockhashValid`, `simulate`, `latestBlockhash`, `blockHeight`, `lamports`, `status`, `statuses` and `slot` reject only when the
 * RPC cannot be reached; `send` and `confirm` never reject.
 */
export abstract class PaymentChain {
  /** The checks that need no chain (layout, instructions, amount, recipient, mint, signatures); throws PaymentRejection. */
  abstract verifyTransfer(transactionBase64: string, expectations: ExactExpectations): VerifiedTransfer;

  /** Whether the transaction can still land: its blockhash is live, or its nonce account still holds that nonce. */
  abstract blockhashValid(transfer: Pick<VerifiedTransfer, 'recentBlockhash' | 'nonceAccount'>): Promise<boolean>;

  /**
   * Runs the transaction (signatures not checked, so the sponsored fee payer's slot may be empty)
   * without landing it, reading what the watched authority could still spend from its account.
   */
  abstract simulate(transactionBase64: string, watch: WatchedSource): Promise<SimulationOutcome>;

  /** What the blockhash tracker polls. */
  abstract latestBlockhash(): Promise<BlockhashView>;

  /** The current block height alone: how the tracker judges a payment against a fresh height. */
  abstract blockHeight(): Promise<number>;

  /** An account's SOL balance (a fee payer's), in lamports. */
  abstract lamports(address: string): Promise<bigint>;

  /**
   * The bytes to send for a transaction `verifyTransfer` accepted: a sponsored one co-signed by
   * whichever of our fee payers is its account 0 (a client-paid one as it came). Null when its
   * account 0 is one of our fee payers and that key cannot sign.
   */
  abstract prepare(transactionBase64: string): PreparedTransaction | null;

  /** Sends prepared bytes once, with preflight, and without the node retrying on its own. */
  abstract send(prepared: PreparedTransaction): Promise<SendOutcome>;

  /** Waits up to `timeoutMs` for the transaction to reach `confirmed` or to land with an error; `unconfirmed` at once when `signal` aborts. */
  abstract confirm(signature: string, timeoutMs: number, signal?: AbortSignal): Promise<ConfirmOutcome>;

  /** The transaction's status, searching the history too. */
  abstract status(signature: string): Promise<ChainStatus>;

  /** The statuses of several transactions in one look-up, history included, in their order. */
  abstract statuses(signatures: readonly string[]): Promise<ChainStatus[]>;

  /** The current slot, at `confirmed` (escrow expiries and channel vouchers are counted in slots). */
  abstract slot(): Promise<bigint>;

  /** Reads a prepared transaction's id and what bounds its life. */
  abstract life(signedTransaction: string): TransactionLife;
}
