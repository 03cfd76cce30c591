/** The spec's (section 7) answer to every rejected payment transaction; the reason goes to logs and metrics only. */
export const PAYMENT_VERIFICATION_FAILED = 'Payment verification failed. Check your transaction and retry.';

/** What an `exact` payment transaction must do to pay for a request. */
export interface ExactExpectations {
  /** The recipient wallet; funds must land in its associated token account for `mint`. */
  payTo: string;
  mint: string;
  /** The quote, in atomic units of `mint`. */
  minimumAmount: bigint;
  /** Durable-nonce transactions stay replayable for a day: accepted only while the shared replay store (Redis) is up. */
  allowDurableNonce: boolean;
}

/**
 * The two fee layouts of an `exact` transaction: the client pays the fee and signs alone, or the
 * gateway's fee payer is signer 0 and co-signs at settlement.
 */
export type ExactLayout = 'client-paid' | 'sponsored';

/** A payment transaction that passed every check that needs no chain. */
export interface VerifiedTransfer {
  /** The wallet that authorised the transfer (the payer). */
  payer: string;
  /** Token account debited. */
  source: string;
  /** Token account credited: the associated token account of `payTo`. */
  destination: string;
  amount: bigint;
  /** The payer's signature (base58), as receipts and logs show it. */
  signature: string;
  /**
   * What replay protection keys on: a hash of the signed message. The payer's signature would be
   * the letter of spec 5.3, but a payer can sign one message twice with different valid
   * signatures; the message is the same transaction either way, and only one copy can land.
   */
  replayKey: string;
  /** The message's fee payer: the payer itself (client-paid) or one of the gateway's keys (sponsored). */
  feePayer: string;
  layout: ExactLayout;
  /** The message's blockhash; for a durable-nonce transaction, the nonce value it consumes. */
  recentBlockhash: string;
  /** The nonce account of a durable-nonce transaction, else null. */
  nonceAccount: string | null;
  /** The priority fee (compute-unit price x limit), in lamports. */
  priorityFeeLamports: bigint;
  /** What landing it costs its fee payer: the base fee per signature plus the priority fee, in lamports. */
  networkFeeLamports: bigint;
}

export type PaymentRejectionReason =
  /** Not base64, not a legacy or v0 Solana transaction, or indexes outside the message. */
  | 'undecodable'
  /** Signer set that fits neither layout; for escrow, anything but the agent alone as fee payer and signer. */
  | 'layout'
  /** A token-program instruction other than TransferChecked, or no TransferChecked at all. */
  | 'not-transfer-checked'
  /** More than one TransferChecked. */
  | 'multiple-transfers'
  /** An instruction outside the allowed set (compute budget, one TransferChecked, memo, leading nonce advance; for escrow, compute budget and one escrow instruction). */
  | 'disallowed-instruction'
  | 'amount'
  | 'destination'
  | 'mint'
  | 'decimals'
  /** A required signature missing or invalid. */
  | 'signature'
  /** A gateway fee payer would be the transfer's authority or source. */
  | 'fee-payer-transfer'
  /** A malformed or repeated compute-budget instruction. */
  | 'compute-budget'
  | 'compute-price'
  /** A durable-nonce transaction while they are not allowed, or a malformed nonce advance. */
  | 'durable-nonce'
  /** v0 address lookup tables: the accounts they add cannot be checked without the chain. */
  | 'lookup-tables'
  /** Escrow: no instruction to the escrow program, or one that is not a deposit. */
  | 'deposit-instruction'
  /** Escrow: the deposit's accounts are not agent, provider, mint, escrow, agent and vault token accounts and the three programs, in order, with their flags. */
  | 'deposit-accounts'
  /** Escrow: the deposit's service id is not the payload's. */
  | 'service-id';

/** A payment transaction the gateway refuses; answered with 402 `invalid_payment` and PAYMENT_VERIFICATION_FAILED. */
export class PaymentRejection extends Error {
  constructor(
    readonly reason: PaymentRejectionReason,
    detail?: string,
  ) {
    super(detail === undefined ? `payment rejected: ${reason}` : `payment rejected: ${reason} (${detail})`);
    this.name = 'PaymentRejection';
  }
}
