import bs58 from 'bs58';
import { encodePaymentSignature, paymentPayloadJson, X402_VERSION, type PaymentPayload } from '../x402';
import type { VoucherFields } from './messages';
import type { ChannelQuote } from './quote';

/** A voucher and its session key's signature over `voucherMessage(voucher)`. */
export interface SignedVoucher extends VoucherFields {
  readonly signature: Uint8Array;
}

/**
 * The `PAYMENT-SIGNATURE` value paying `quote` with a voucher: an x402 v2 PaymentPayload whose
 * `accepted` is the `exact` offer's terms under the scheme `channel`, in the spec's snake_case
 * (one casing per message, which the gateway's decoder requires).
 */
export function channelPaymentSignature(quote: ChannelQuote, voucher: SignedVoucher): string {
  return encodePaymentSignature(channelPayment(quote, voucher), 'snake');
}

/** The same PaymentPayload as plain JSON: an A2A message's `x402.payment.payload`. */
export function channelPaymentPayload(quote: ChannelQuote, voucher: SignedVoucher): Record<string, unknown> {
  return paymentPayloadJson(channelPayment(quote, voucher), 'snake');
}

function channelPayment(quote: ChannelQuote, voucher: SignedVoucher): PaymentPayload {
  return {
    x402Version: X402_VERSION,
    resource: quote.resource,
    accepted: { ...quote.offer, scheme: 'channel', amount: quote.amount.toString() },
    payload: {
      kind: 'channel',
      voucher: {
        channelId: bs58.encode(voucher.channelId),
        cumulative: voucher.cumulative.toString(),
        expirySlot: jsonInteger(voucher.expirySlot, 'expiry slot'),
        nonce: jsonInteger(voucher.nonce, 'nonce'),
        requestDigest: Buffer.from(voucher.requestDigest).toString('base64'),
        signature: Buffer.from(voucher.signature).toString('base64'),
      },
    },
  };
}

/** The gateway refuses a JSON number above 2^53, which it cannot read exactly. */
function jsonInteger(value: bigint, name: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${name} exceeds 2^53, which JSON cannot carry exactly`);
  return Number(value);
}
