/** Spec 2.10 and docs/decisions.md (receipts): what a payment left behind. Amounts are atomic USDC. */
export type ReceiptStatus = 'pending' | 'settled' | 'failed' | 'not_charged';

/**
 * What the payer received: the whole answer, part of it (content sent, then the answer ended early
 * or the client left midway), or nothing because the client left before any content reached it.
 */
export type Delivery = 'complete' | 'partial' | 'client_disconnected';

export interface Receipt {
  /** UUIDv4: knowing it is the capability to read the receipt. */
  id: string;
  status: ReceiptStatus;
  scheme: 'exact' | 'escrow' | 'channel';
  network: string;
  asset: string;
  payerWallet: string;
  payTo: string;
  /**
   * The transaction's id (its first signature, base58). Until a sponsored transaction is
   * broadcast its first slot is the gateway's, still empty, so the receipt holds the payer's signature.
   */
  transactionSignature: string;
  amountQuotedAtomic: bigint;
  /** What the signed transfer moves. */
  amountPaidAtomic: bigint;
  /** What actually left the payer: the paid amount once settled, 0 otherwise. */
  amountChargedAtomic: bigint;
  endpoint: string;
  model: string | null;
  requestId: string;
  createdAt: Date;
  settledAt: Date | null;
  /** Null until the request has ended. */
  delivery: Delivery | null;
  /** When the transaction was handed to the chain; null while it never was. */
  broadcastAt: Date | null;
  /** The payment's replay key: while this receipt is not `not_charged`, no other receipt may hold it (the durable claim). */
  replayKey: string;
  /** The signed transaction (base64), co-signed once broadcast; what the reconciler rebroadcasts. Never shown. */
  signedTransaction: string;
  /** Escrow payments only (null otherwise): where the deposit sits and what became of its claim. */
  escrow: EscrowReceipt | null;
}

/**
 * An escrow payment's part of its receipt. The deposit is `amountPaidAtomic` (and
 * `transactionSignature` the deposit's); the claim is `amountChargedAtomic` once settled; the rest
 * goes back to the agent (by the claim, or by the agent's refund at expiry when nothing is claimed).
 */
export interface EscrowReceipt {
  /** The escrow account (the PDA), base58. */
  address: string;
  expirySlot: bigint;
  /** The claim transaction's id once one was sent; null while none was. */
  claimSignature: string | null;
}

/** What a payment fixes at acceptance; the rest of a new receipt is the same for every scheme. */
export type AcceptedReceiptFields = Omit<Receipt, 'status' | 'amountChargedAtomic' | 'createdAt' | 'settledAt' | 'delivery' | 'broadcastAt'>;

/** A receipt as written at acceptance: pending, nothing charged, nothing sent or delivered yet. */
export function pendingReceipt(fields: AcceptedReceiptFields): Receipt {
  return { ...fields, status: 'pending', amountChargedAtomic: 0n, createdAt: new Date(), settledAt: null, delivery: null, broadcastAt: null };
}

/** The changes a settlement (or its absence) makes to a pending receipt. */
export interface ReceiptOutcome {
  status: Exclude<ReceiptStatus, 'pending'>;
  amountChargedAtomic: bigint;
  settledAt: Date | null;
  /** The model that finally answered, when it differs from the quoted one (fallback). */
  model?: string;
  /** The landed transaction's id, once known. */
  transactionSignature?: string;
  /** Escrow: the claim transaction that landed (kept in the receipt's escrow part). */
  claimSignature?: string;
}

/** What is recorded when a payment is handed to the chain. */
export interface BroadcastRecord {
  broadcastAt: Date;
  /** The transaction as sent (co-signed when sponsored), base64. */
  signedTransaction: string;
  /** Its id as sent. */
  transactionSignature: string;
}
