import { Injectable } from '@nestjs/common';
import { decodePaymentSignature, PaymentPayloadError, type PaymentPayload } from '../../../../libs/x402';
import { GatewayError } from '../../../errors/gateway-error';
import { paymentErrors } from '../domain/payment-errors';
import { ChannelDraws } from './channel-draws';
import { EscrowDeposits } from './escrow-deposits';
import { ExactPayments } from './exact-payments';
import type { PaidPayment } from './paid-payment';
import { PaymentChallenges } from './payment-challenges';
import type { PaymentContext } from './payment-context';
import { PaymentMetrics } from './payment-metrics';
import type { PaymentScheme } from './payment-scheme';

/** Spec 5.1: the header may hold up to 50 KB. */
export const MAX_PAYMENT_HEADER_BYTES = 50 * 1024;

/**
 * The one payment use case every paid surface calls (chat, the paid tools and proxy, A2A;
 * docs/decisions.md, "Payment schemes"): the header's size and decoding, the terms every scheme
 * shares (resource, network, asset), then the scheme the payload names, among those the surface
 * takes, does the rest. A payload naming a scheme the surface does not take goes to `exact`,
 * which refuses it as not offered: never downgraded (spec 4.7). Every outcome is counted here,
 * the one place both budget refusals are seen whatever the scheme.
 */
@Injectable()
export class PaymentAcceptance {
  private readonly schemes: readonly PaymentScheme[];

  constructor(
    private readonly challenges: PaymentChallenges,
    private readonly exact: ExactPayments,
    escrow: EscrowDeposits,
    channels: ChannelDraws,
    private readonly metrics: PaymentMetrics,
  ) {
    this.schemes = [exact, escrow, channels];
  }

  async accept(header: string, context: PaymentContext): Promise<PaidPayment> {
    if (context.attempt.clientAddress !== context.clientAddress) throw new TypeError('the attempt was counted for another client address');
    try {
      const payload = this.decodeChecked(header, context);
      // A voucher is the channel scheme's to judge whatever its `accepted` says: 404 while channels are off (spec 4.7).
      const named = isVoucher(payload) ? 'channel' : payload.accepted.scheme;
      const scheme = this.schemes.find((candidate) => candidate.name === named && context.schemes.includes(candidate.name)) ?? this.exact;
      const payment = await scheme.accept(payload, context);
      this.metrics.payment('accepted');
      return payment;
    } catch (err) {
      this.metrics.payment(err instanceof GatewayError ? err.type : 'error');
      if (err instanceof GatewayError && err.code === 'budget.exceeded') this.metrics.budgetRejected('exceeded');
      if (err instanceof GatewayError && err.code === 'budget.payer_budgeted') this.metrics.budgetRejected('payer_budgeted');
      throw err;
    }
  }

  /** Size, decode, and the terms every scheme shares: resource, network, asset; a channel voucher where the surface takes none is 404, as with channels off. */
  private decodeChecked(header: string, context: PaymentContext): PaymentPayload {
    if (Buffer.byteLength(header, 'utf8') > MAX_PAYMENT_HEADER_BYTES) throw paymentErrors.tooLarge(MAX_PAYMENT_HEADER_BYTES);
    const payload = decode(header);
    const { terms } = this.challenges;
    if (resourcePath(payload.resource.url) !== context.path || (payload.resource.method ?? 'POST').toUpperCase() !== 'POST') throw paymentErrors.resource(context.path);
    const { accepted } = payload;
    if (accepted.network !== terms.network) throw paymentErrors.network(terms.network);
    if (accepted.asset !== terms.asset) throw paymentErrors.asset(terms.asset);
    if (isVoucher(payload) && !context.schemes.includes('channel')) throw paymentErrors.channelUnavailable();
    return payload;
  }
}

function isVoucher(payload: PaymentPayload): boolean {
  return payload.accepted.scheme === 'channel' || payload.payload.kind === 'channel';
}

function decode(header: string): PaymentPayload {
  try {
    return decodePaymentSignature(header);
  } catch (err) {
    if (err instanceof PaymentPayloadError) throw paymentErrors.malformed(err.message);
    throw err;
  }
}

/** The path of a resource URL, which clients send as the bare path or as an absolute URL. */
function resourcePath(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
