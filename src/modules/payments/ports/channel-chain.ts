import type { PreparedTransaction } from './payment-chain';

/** A close's settlement: the refund to the agent and the payout to the recipient (a zero amount is left out). */
export interface CloseOrder {
  /** Named in the transaction's memo: closes of equal amounts are then never one transaction. */
  channelId: string;
  agent: string;
  refund: bigint;
  payout: bigint;
}

/**
 * The custody wallet on the chain (ARCHITECTURE.md section 3, "Channels"). Sending, confirming and
 * statuses go through PaymentChain, which knows any transaction. Every method rejects only when the
 * RPC cannot be reached.
 */
export abstract class ChannelChain {
  /** The custody wallet's public key, base58. */
  abstract readonly custody: string;

  /** Whether custody's USDC token account exists (channels stay off without it). */
  abstract custodyAccountExists(): Promise<boolean>;

  /** Custody's USDC balance, atomic units. */
  abstract custodyBalance(): Promise<bigint>;

  /**
   * One settlement transaction, signed by custody: the agent's token account created idempotently,
   * then the refund to it and the payout to the recipient's token account. The fee is paid by
   * `feePayer` (a pool key, which co-signs) or, when null, by custody itself. Null when the fee
   * payer cannot sign.
   */
  abstract closeTransaction(order: CloseOrder, feePayer: string | null): Promise<PreparedTransaction | null>;
}
