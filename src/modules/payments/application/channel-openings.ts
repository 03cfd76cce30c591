import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import bs58 from 'bs58';
import { usableSessionKey } from '../../../../libs/channel-client/signer';
import { GatewayConfig } from '../../../config/gateway-config';
import { fieldError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import type { Channel } from '../domain/channel';
import { channelErrors } from '../domain/channel-errors';
import { paymentErrors, PaymentReplayed } from '../domain/payment-errors';
import type { AcceptedPayment } from './accepted-payment';
import { ChannelAvailability, type ChannelParts } from './channel-availability';
import { ExactPayments } from './exact-payments';
import { PaymentAttempts } from './payment-attempts';
import { PaymentMetrics } from './payment-metrics';

export interface OpenRequest {
  agentWallet: string;
  /** The key that signs vouchers and the close; the agent wallet when not given. */
  sessionKey: string | null;
  /** Base64 of the signed funding transfer. */
  fundingTx: string;
  clientAddress: string;
  requestId: string;
}

export interface Opened {
  channel: Channel;
  /** False for a repeat of an open that already happened (the client lost its answer). */
  created: boolean;
}

/**
 * `POST /v1/channel/open` (docs/decisions.md, "Channels"): the funding is an `exact`
 * payment to custody, through ExactPayments and the settlement lifecycle: checked, claimed, its
 * receipt written, broadcast and confirmed. The channel is written `opening` before the broadcast
 * and is `open` once the funding landed; the credit is the verified amount. A repeat with the same
 * funding and body answers the same channel; another body is 409.
 */
@Injectable()
export class ChannelOpenings {
  constructor(
    private readonly availability: ChannelAvailability,
    private readonly exact: ExactPayments,
    private readonly attempts: PaymentAttempts,
    private readonly config: GatewayConfig,
    private readonly metrics: PaymentMetrics,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(ChannelOpenings.name);
  }

  async open(request: OpenRequest): Promise<Opened> {
    const parts = this.availability.require();
    const sessionKey = request.sessionKey ?? request.agentWallet;
    // A key of small order would verify forged signatures were it taken; none of its vouchers is.
    if (!usableSessionKey(sessionKey))
      throw fieldError('request.invalid_body', request.sessionKey ? 'session_key' : 'agent_wallet', 'the session key is not a usable ed25519 public key (32 bytes, not of small order)');
    const custody = parts.chain.custody;
    const minimum = this.config.channels.minDepositAtomic;
    const openDigest = digestOf(request);
    const transfer = this.exact.fundingTransfer(request.fundingTx, { custody, agent: request.agentWallet }, minimum);
    const known = await parts.ledger.findByFunding(transfer.signature);
    if (known) return repeated(known, openDigest);

    const context = {
      schemes: ['exact'] as const,
      exactSettlesAt: 'before_handler' as const,
      path: '/v1/channel/open',
      quote: minimum,
      requestId: request.requestId,
      clientAddress: request.clientAddress,
      attempt: await this.attempts.count(request.clientAddress),
      model: null,
      durableNonces: 'refuse' as const,
    };
    let payment: AcceptedPayment;
    try {
      payment = await this.exact.acceptFunding(transfer, request.fundingTx, context, custody);
    } catch (err) {
      // A repeat racing its original: the original's channel answers it once written.
      const original = err instanceof PaymentReplayed ? await parts.ledger.findByFunding(transfer.signature) : null;
      if (original) return repeated(original, openDigest);
      throw err;
    }
    const written = await parts.ledger
      .createOpening({
        id: bs58.encode(randomBytes(32)),
        agentWallet: request.agentWallet,
        sessionKey,
        custody,
        deposited: transfer.amount,
        fundingSignature: transfer.signature,
        openDigest,
        fundingReceiptId: payment.receiptId,
      })
      .catch(async (err: unknown) => {
        await payment.release();
        throw err;
      });
    if (!written.created) {
      await payment.release();
      return repeated(written.channel, openDigest);
    }
    return { channel: await this.fund(parts, written.channel, payment), created: true };
  }

  /** The broadcast and its confirmation; the channel opens once the funding landed, and goes when it never will. */
  private async fund(parts: ChannelParts, channel: Channel, payment: AcceptedPayment): Promise<Channel> {
    try {
      await payment.broadcast(null);
    } catch (err) {
      await parts.ledger.dropOpening(channel.id);
      throw err;
    }
    const settlement = await payment.settled();
    if (settlement.status === 'failed') {
      await parts.ledger.dropOpening(channel.id);
      throw paymentErrors.reverted();
    }
    if (settlement.status === 'pending') {
      // The reconciler finishes the receipt, and the channel follows it (ChannelWorker); a repeat of the open reads it then.
      this.logger.warn({ channel: channel.id, receipt: payment.receiptId }, 'channel funding not confirmed in the window; left opening');
      throw paymentErrors.unconfirmed();
    }
    await parts.ledger.markOpen(channel.id);
    this.metrics.channelOpened();
    return { ...channel, status: 'open' };
  }
}

/** A repeat of an open: the same channel for the same body, 409 for another; still `opening`, as unconfirmed as the original. */
function repeated(channel: Channel, openDigest: string): Opened {
  if (channel.openDigest !== openDigest) throw channelErrors.openConflict();
  if (channel.status === 'opening') throw paymentErrors.unconfirmed();
  return { channel, created: false };
}

/** What makes two opens the same: the agent, the session key as it will be, the funding. */
function digestOf(request: OpenRequest): string {
  const fields = [request.agentWallet, request.sessionKey ?? request.agentWallet, request.fundingTx];
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64');
}
