/** Spec 2.10 and ARCHITECTURE.md section 3: what a payment left behind. Amounts are atomic USDC. */
export type ReceiptStatus = 'pending' | 'settled' | 'failed' | 'not_charged';

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
   * The transaction's id (its first signature, base58). Until a sponsored transaction is settled
   * its first slot is the gateway's, still empty, so a pending receipt holds the payer's signature.
   */
  transactionSignature: string;
  amountQuotedAtomic: bigint;
  /** What the signed transfer moves. */
  amountPaidAtomic: bigint;
  /** What actually left the payer: the paid amount once settled, 0 when nothing was broadcast. */
  amountChargedAtomic: bigint;
  endpoint: string;
  model: string | null;
  requestId: string;
  createdAt: Date;
  settledAt: Date | null;
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
}
