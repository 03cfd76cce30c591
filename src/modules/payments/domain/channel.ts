/** A channel's life (docs/decisions.md, "Channels"): funded, drawn down off chain, settled on chain at its close. */
export type ChannelStatus = 'opening' | 'open' | 'closing' | 'closed';

export interface Channel {
  /** 32 random bytes, base58: also the read capability of `GET /v1/channel/{id}`. */
  id: string;
  agentWallet: string;
  /** The key that signs vouchers and the close (the agent wallet unless the open named another). */
  sessionKey: string;
  /** The custody wallet the funding paid and the close pays from. */
  custody: string;
  /** The verified funding transfer's amount, atomic USDC. */
  deposited: bigint;
  /** Atomic USDC drawn so far: the last recorded voucher's cumulative. */
  lastCumulative: bigint;
  status: ChannelStatus;
  /** The funding transfer's id (its first signature): unique, what makes an open idempotent. */
  fundingSignature: string;
  /** A digest of the open's body: a repeat with the same funding and another body is refused. */
  openDigest: string;
  /** The funding payment's receipt. */
  fundingReceiptId: string;
  createdAt: Date;
  lastDrawAt: Date | null;
  /** The settlement transaction that landed, once `closed`. */
  closeSignature: string | null;
}

/** What a close pays: the unspent deposit back to the agent, what was drawn to the recipient. */
export function closeAmounts(channel: Pick<Channel, 'deposited' | 'lastCumulative'>): { refund: bigint; payout: bigint } {
  return { refund: channel.deposited - channel.lastCumulative, payout: channel.lastCumulative };
}
