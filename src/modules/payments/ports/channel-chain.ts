import type { PreparedTransaction } from './payment-chain';

/**
 * One leg of a close's settlement (docs/decisions.md, "Channels"): the payout of what was drawn to
 * the recipient, or the refund of the rest to the agent. Both go in one transaction when the
 * refund can land; the payout goes alone when it cannot, so an agent never holds it up.
 */
export interface SettlementLeg {
  /** Named in the transaction's memo with the legs: settlements of equal amounts are never one transaction. */
  channelId: string;
  kind: 'payout' | 'refund';
  /** The wallet paid: the recipient for the payout, the agent for the refund. */
  owner: string;
  amount: bigint;
}

/**
 * The custody wallet on the chain (docs/decisions.md, "Channels"). Sending, confirming and
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
   * Whether a refund to `agent` can land where only the agent can take it, at no cost to the
   * gateway: its USDC associated token account exists, is still its own and is not frozen.
   */
  abstract refundable(agent: string): Promise<boolean>;

  /**
   * One transaction settling `legs` (in order), signed by custody: a payout creates the recipient's
   * token account if absent (it is the gateway's own); a refund pays the agent's, which must exist
   * (`refundable`). The fee is paid by `feePayer` (a pool key, which co-signs) or, when null, by
   * custody itself. Null when the fee payer cannot sign.
   */
  abstract settlementTransaction(legs: readonly SettlementLeg[], feePayer: string | null): Promise<PreparedTransaction | null>;
}
