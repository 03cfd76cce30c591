import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import bs58 from 'bs58';
import { CHANNEL_ID_BYTES, REQUEST_DIGEST_BYTES, voucherMessage } from '../../../../libs/channel-client/messages';
import { verifySignature } from '../../../../libs/channel-client/signer';
import type { ChannelVoucher, PaymentPayload } from '../../../../libs/x402';
import { GatewayConfig } from '../../../config/gateway-config';
import { AppLogger } from '../../../logging/app-logger';
import type { Channel } from '../domain/channel';
import { channelErrors } from '../domain/channel-errors';
import { paymentErrors, PaymentReplayed } from '../domain/payment-errors';
import { pendingReceipt } from '../domain/receipt';
import { BudgetReservations } from '../ports/budget-reservations';
import { PaymentChain } from '../ports/payment-chain';
import { ChannelAvailability, type ChannelParts } from './channel-availability';
import { ChannelDrawPayment } from './channel-draw-payment';
import { channelLock } from './channel-lock';
import { PaymentChallenges } from './payment-challenges';
import type { PaymentContext } from './payment-context';
import { PaymentMetrics } from './payment-metrics';
import { PaymentScheme } from './payment-scheme';
import { ReceiptOutbox } from './receipt-outbox';

/** The lock outlives the longest serve it guards, with room for the record after it. */
const LOCK_MARGIN_MS = 60_000;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const BELOW_2_63 = 1n << 63n;

/** A voucher's fields as the channel reads them, every one checked. */
interface Voucher {
  channelId: string;
  channelIdBytes: Uint8Array;
  cumulative: bigint;
  expirySlot: bigint;
  nonce: bigint;
  requestDigest: Buffer;
  signature: Buffer;
}

/**
 * The `channel` scheme on a paid surface (docs/decisions.md, "Channels"): a voucher is
 * checked in the architecture's order (decode; the channel open; its signature; the draw lock;
 * the digest; the expiry; the delta; the deposit), every refusal after the signature telling
 * `last_cumulative`. What it returns serves, then records the draw once content was delivered.
 * Vouchers never touch the replay set: the strictly increasing cumulative is the replay guard.
 */
@Injectable()
export class ChannelDraws extends PaymentScheme {
  readonly name = 'channel';
  private readonly lockMs: number;

  constructor(
    private readonly availability: ChannelAvailability,
    private readonly challenges: PaymentChallenges,
    private readonly chain: PaymentChain,
    private readonly budgets: BudgetReservations,
    private readonly outbox: ReceiptOutbox,
    private readonly metrics: PaymentMetrics,
    private readonly logger: AppLogger,
    private readonly config: GatewayConfig,
  ) {
    super();
    logger.setContext(ChannelDraws.name);
    // The longest a draw can run before its record: its wait for the answer and the answer (a REST request, or an A2A serve), the record.
    this.lockMs = Math.max(config.http.requestTimeoutMs + config.http.streamMaxMs, config.a2a.serveMs) + config.settlement.confirmMs + LOCK_MARGIN_MS;
  }

  async accept(payload: PaymentPayload, context: PaymentContext): Promise<ChannelDrawPayment> {
    const parts = this.availability.require();
    if (payload.payload.kind !== 'channel' || payload.accepted.scheme !== 'channel') throw paymentErrors.schemeMismatch(payload.accepted.scheme, payload.payload.kind);
    if (payload.accepted.payTo !== this.challenges.terms.payTo) throw paymentErrors.recipient(this.challenges.terms.payTo);
    const voucher = decodeVoucher(payload.payload.voucher);
    const channel = await parts.ledger.find(voucher.channelId);
    if (!channel || channel.status !== 'open') throw channelErrors.notOpen();
    const message = voucherMessage({ channelId: voucher.channelIdBytes, cumulative: voucher.cumulative, expirySlot: voucher.expirySlot, nonce: voucher.nonce, requestDigest: voucher.requestDigest });
    if (!verifySignature(message, voucher.signature, channel.sessionKey)) throw channelErrors.badSignature('voucher');
    // The surfaces without budgets refuse a budgeted agent as they refuse its `exact` payment (403 on the tools, -32007 on A2A).
    if (context.budgetedPayers === 'refuse' && (await this.budgets.isBudgeted(channel.agentWallet))) throw paymentErrors.budgetedPayer(channel.agentWallet);
    const token = await channelLock(parts.locks, channel.id, this.lockMs);
    if (token === null) throw channelErrors.busy(channel.lastCumulative);
    try {
      return await this.admit(parts, channel, voucher, context, token);
    } catch (err) {
      await parts.locks.release(channel.id, token);
      throw err;
    }
  }

  /** Under the lock: the channel as it now is (the last draw may have just been recorded), then the rest of the checks and the pending receipt. */
  private async admit(parts: ChannelParts, locked: Channel, voucher: Voucher, context: PaymentContext, token: string): Promise<ChannelDrawPayment> {
    const channel = await parts.ledger.find(locked.id);
    if (!channel || channel.status !== 'open') throw channelErrors.notOpen();
    const last = channel.lastCumulative;
    if (!digestMatches(voucher.requestDigest, context.body)) throw channelErrors.digestMismatch(last);
    // The very voucher drawn before, sent again (its client left before the answer reached it): the
    // answer kept for it is redelivered, as for a resent `exact` payment; with none kept, it is stale.
    if (voucher.cumulative <= last && (await parts.ledger.drawnSignature(channel.id, voucher.cumulative)) === voucher.signature.toString('base64')) {
      throw new PaymentReplayed(drawKey(channel.id, voucher.cumulative), channelErrors.stale(last));
    }
    const slot = await this.chain.slot().catch(() => {
      throw paymentErrors.chainUnreachable();
    });
    if (voucher.expirySlot - slot < this.config.channels.minExpirySlots) throw channelErrors.expired(last, this.config.channels.minExpirySlots);
    if (voucher.cumulative <= last) throw channelErrors.stale(last);
    if (voucher.cumulative - last !== context.quote) throw channelErrors.wrongDelta(last, context.quote);
    if (voucher.cumulative > channel.deposited) throw channelErrors.overdraw(last, channel.deposited);

    const receiptId = randomUUID();
    const refusal = context.budgetedPayers === 'refuse' ? null : await this.budgets.reserve(receiptId, channel.agentWallet, context.quote);
    if (refusal) throw refusal;
    const { network, asset, payTo } = this.challenges.terms;
    const receipt = pendingReceipt({
      id: receiptId,
      scheme: 'channel',
      network,
      asset,
      payerWallet: channel.agentWallet,
      payTo,
      // A draw moves nothing on chain: the receipt names the channel and the voucher instead.
      transactionSignature: channel.id,
      amountQuotedAtomic: context.quote,
      amountPaidAtomic: context.quote,
      endpoint: context.path,
      model: context.model,
      requestId: context.requestId,
      replayKey: drawKey(channel.id, voucher.cumulative),
      signedTransaction: '',
      escrow: null,
    });
    try {
      await parts.receipts.create(receipt);
    } catch (err) {
      await this.budgets.follow(receiptId, 'not_charged').catch(() => undefined);
      this.logger.error({ err, request_id: context.requestId }, 'could not write the pending receipt of a draw; voucher refused unused');
      throw paymentErrors.receiptsUnavailable();
    }
    return new ChannelDrawPayment(
      {
        channel,
        cumulative: voucher.cumulative,
        expirySlot: voucher.expirySlot,
        nonce: voucher.nonce,
        requestDigest: voucher.requestDigest,
        signature: voucher.signature,
        quote: context.quote,
        receipt,
        lockToken: token,
      },
      { ledger: parts.ledger, locks: parts.locks, receipts: parts.receipts, budgets: this.budgets, outbox: this.outbox, metrics: this.metrics, logger: this.logger },
    );
  }
}

/** A draw's replay key: the receipt's, and what an answer kept for a resend is found by. */
function drawKey(channelId: string, cumulative: bigint): string {
  return `channel:${channelId}:${cumulative}`;
}

/** The voucher's fields, each checked (400 `payment.malformed` naming the field). */
function decodeVoucher(voucher: ChannelVoucher): Voucher {
  const channelIdBytes = base58Bytes(voucher.channelId, 'channel_id', CHANNEL_ID_BYTES);
  return {
    channelId: voucher.channelId as string,
    channelIdBytes,
    cumulative: BigInt(voucher.cumulative),
    expirySlot: integer(voucher.expirySlot, 'expiry_slot'),
    nonce: voucher.nonce === undefined ? 0n : integer(voucher.nonce, 'nonce'),
    requestDigest: base64Bytes(voucher.requestDigest, 'request_digest', REQUEST_DIGEST_BYTES),
    signature: base64Bytes(voucher.signature, 'signature', 64),
  };
}

function base58Bytes(value: unknown, field: string, length: number): Uint8Array {
  let bytes: Uint8Array | null = null;
  try {
    if (typeof value === 'string') bytes = bs58.decode(value);
  } catch {
    bytes = null;
  }
  if (bytes?.length !== length) throw paymentErrors.malformed(`payload.${field} must be base58 of ${length} bytes`);
  return bytes;
}

function base64Bytes(value: unknown, field: string, length: number): Buffer {
  const bytes = typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? Buffer.from(value, 'base64') : null;
  if (bytes?.length !== length) throw paymentErrors.malformed(`payload.${field} must be base64 of ${length} bytes`);
  return bytes;
}

/** An integer below 2^63, as a JSON number read exactly (at most 2^53) or a decimal string. */
function integer(value: unknown, field: string): bigint {
  const parsed = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : typeof value === 'string' && /^\d{1,19}$/.test(value) ? BigInt(value) : null;
  if (parsed === null || parsed >= BELOW_2_63 || (typeof value === 'number' && parsed > MAX_SAFE)) {
    throw paymentErrors.malformed(`payload.${field} must be an integer below 2^63 (a JSON number at most 2^53, else a decimal string)`);
  }
  return parsed;
}

function digestMatches(digest: Buffer, body: Uint8Array | undefined): boolean {
  if (!body) throw new TypeError('a surface taking channel vouchers must give the request body to bind');
  return timingSafeEqual(digest, createHash('sha256').update(body).digest());
}
