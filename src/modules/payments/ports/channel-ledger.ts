import type { Channel } from '../domain/channel';

/** A channel written before its funding is broadcast. */
export type NewChannel = Omit<Channel, 'status' | 'lastCumulative' | 'createdAt' | 'lastDrawAt' | 'closeSignature'>;

/** One recorded draw: the voucher, its receipt settled, its spend row, the channel advanced; all or nothing. */
export interface ChannelDraw {
  channelId: string;
  cumulative: bigint;
  amount: bigint;
  expirySlot: bigint;
  nonce: bigint;
  /** Base64 of the 32-byte request digest. */
  requestDigest: string;
  /** Base64 of the session key's 64-byte signature. */
  signature: string;
  receiptId: string;
  /** The spend row, as SpendLog would write it (the provider too: spend rows name who answered, the gateway for a service). */
  spend: { requestId: string; payer: string; model: string; provider: string; inputTokens: number; outputTokens: number; chargedAtomic: bigint };
  at: Date;
}

/** A settlement transaction of a close, recorded before it is sent. */
export interface SentSettlement {
  signature: string;
  /** Base64 wire bytes: how long it can still land is read from them. */
  signedTransaction: string;
  /** The legs it settles: `payout`, `refund`, or both (`payout+refund`). */
  leg: string;
}

/** A close in progress: its legs settled one transaction at a time, each recorded before it is sent. */
export interface ChannelClose {
  channel: Channel;
  attempts: number;
  /** Every settlement transaction sent so far, oldest first: the chain is asked about all of them. */
  sent: SentSettlement[];
}

export interface CloseJobCounts {
  pending: number;
  inProgress: number;
  completed: number;
}

/**
 * The channel ledger (PostgreSQL or PGlite; there is no memory ledger): the channels, their
 * append-only vouchers and their close jobs. Close jobs are leased like escrow claims: every move
 * names the holder, so an instance whose lease lapsed can no longer move a job another has taken.
 */
export abstract class ChannelLedger {
  /** Writes an `opening` channel; when its funding signature is taken already, returns that channel instead. */
  abstract createOpening(channel: NewChannel): Promise<{ created: boolean; channel: Channel }>;

  /** The funding landed: `opening -> open`. */
  abstract markOpen(id: string): Promise<void>;

  /** The funding will never land: the `opening` row goes (nothing moved). */
  abstract dropOpening(id: string): Promise<void>;

  abstract find(id: string): Promise<Channel | null>;

  /** The channel its funding transfer (the payer's signature) opened, in any status. */
  abstract findByFunding(fundingSignature: string): Promise<Channel | null>;

  /** Channels `opening` since before `createdBefore`, at most `limit` (the reconciler finishes or drops them). */
  abstract openingBefore(createdBefore: Date, limit: number): Promise<Channel[]>;

  /** The signature (base64) of the voucher drawn at `cumulative` on this channel, or null. */
  abstract drawnSignature(channelId: string, cumulative: bigint): Promise<string | null>;

  /**
   * Records a delivered draw in one transaction: the voucher, the receipt settled, the spend row, and
   * the channel advanced only while it is `open` and behind this cumulative. `race` when the channel
   * moved first (a close, or another draw): nothing is written.
   */
  abstract recordDraw(draw: ChannelDraw): Promise<'recorded' | 'race'>;

  /** `open -> closing` with its close job due at `now`; the channel as it now is (null when unknown). Idempotent. */
  abstract requestClose(id: string, now: Date): Promise<Channel | null>;

  /** Open channels whose last draw (or open) is older than `before`, at most `limit`. */
  abstract idleBefore(before: Date, limit: number): Promise<string[]>;

  /** The custody wallets of channels not yet closed. */
  abstract custodiesInUse(): Promise<string[]>;

  /** The oldest due close job, in progress for `holder` until `leaseUntil`; null when none is due. */
  abstract leaseClose(now: Date, holder: string, leaseUntil: Date): Promise<ChannelClose | null>;

  /** Adds the settlement transaction about to be sent; false when the holder no longer holds the lease (then it must not send). */
  abstract recordCloseAttempt(channelId: string, holder: string, sent: SentSettlement): Promise<boolean>;

  /** The settlement landed: the job done, the channel `closed` with its signature. False when the holder no longer holds it. */
  abstract completeClose(channelId: string, holder: string, signature: string): Promise<boolean>;

  /** Back to pending, due at `dueAt`, one more attempt counted; nothing when the holder no longer holds it. */
  abstract retryClose(channelId: string, holder: string, dueAt: Date, error: string): Promise<void>;

  abstract closeJobCounts(): Promise<CloseJobCounts>;
}
