import { decodeJsonOrBase64, encodeBase64Json } from './base64-json';
import { recase, type Casing } from './casing';
import { X402_VERSION } from './challenge';
import { PaymentPayloadError } from './errors';
import { readRequirements, type PaymentRequirements } from './payment-requirements';
import { WireObject } from './wire-object';

const HEADER = 'PAYMENT-SIGNATURE';
const SERVICE_ID_BYTES = 32;

/** The endpoint paid for. The official client echoes the challenge's resource, so `method` comes back too. */
export interface PaidResource {
  readonly url: string;
  readonly method?: string;
}

/** A signed versioned transaction holding the `TransferChecked`, base64. */
export interface ExactPayload {
  readonly kind: 'exact';
  readonly transaction: string;
}

export interface EscrowPayload {
  readonly kind: 'escrow';
  /** The signed deposit transaction, base64. */
  readonly depositTx: string;
  /** 32 bytes, base64; an escrow PDA seed. */
  readonly serviceId: string;
  /** The agent's wallet, base58; an escrow PDA seed. */
  readonly agentPubkey: string;
}

/**
 * Spec 2.5 names only these voucher fields; the others (its signature among them) are kept as
 * sent, keys in camelCase, for the channel scheme to read.
 */
export interface ChannelVoucher {
  readonly requestDigest: string;
  /** Atomic units, strictly increasing from voucher to voucher. */
  readonly cumulative: string;
  /** A JSON number, or a decimal string (the channel scheme reads it exactly, below 2^63). */
  readonly expirySlot: number | string;
  readonly [field: string]: unknown;
}

export interface ChannelPayload {
  readonly kind: 'channel';
  readonly voucher: ChannelVoucher;
}

export type SchemePayload = ExactPayload | EscrowPayload | ChannelPayload;

/** A decoded `PAYMENT-SIGNATURE`, whichever casing the client wrote, in camelCase. */
export interface PaymentPayload {
  readonly x402Version: typeof X402_VERSION;
  readonly resource: PaidResource;
  readonly accepted: PaymentRequirements;
  /** Its kind follows from its fields, not from `accepted.scheme`: the gateway compares the two. */
  readonly payload: SchemePayload;
}

/** The fields (camelCase) that mark each kind of payload. */
const KIND_MARKERS: ReadonlyArray<readonly [SchemePayload['kind'], readonly string[]]> = [
  ['exact', ['transaction']],
  ['escrow', ['depositTx', 'serviceId', 'agentPubkey']],
  ['channel', ['requestDigest', 'cumulative', 'cumulativeAtomic', 'expirySlot']],
];

/** Base64 or raw JSON, snake_case or camelCase (spec 2.5); throws PaymentPayloadError. */
export function decodePaymentSignature(value: string): PaymentPayload {
  const root = WireObject.root(decodeJsonOrBase64(value, HEADER, PaymentPayloadError), HEADER, PaymentPayloadError);
  const resource = root.object('resource');
  return {
    x402Version: root.oneOf('x402Version', [X402_VERSION]),
    resource: { url: resource.string('url'), method: resource.optionalString('method') },
    accepted: readRequirements(root.object('accepted')),
    payload: readSchemePayload(root.object('payload')),
  };
}

/** For test clients: our spec-form client writes snake_case, the official client camelCase. */
export function encodePaymentSignature(payment: PaymentPayload, casing: Casing): string {
  return encodeBase64Json(paymentPayloadJson(payment, casing));
}

/** The payload as plain JSON in one casing: what a header carries encoded, and A2A's `x402.payment.payload` as it is. */
export function paymentPayloadJson(payment: PaymentPayload, casing: Casing): Record<string, unknown> {
  return recase(
    {
      x402Version: payment.x402Version,
      resource: payment.resource,
      accepted: recase(payment.accepted, casing),
      payload: recase(wireFields(payment.payload), casing),
    },
    casing,
  );
}

function readSchemePayload(payload: WireObject): SchemePayload {
  const kinds = KIND_MARKERS.filter(([, markers]) => markers.some((name) => payload.has(name))).map(([kind]) => kind);
  if (kinds.length === 0) {
    throw new PaymentPayloadError('payload has an unknown shape: expected a transaction, an escrow deposit or a channel voucher');
  }
  if (kinds.length > 1) throw new PaymentPayloadError(`payload mixes fields of the ${kinds.join(' and ')} schemes`);
  switch (kinds[0]) {
    case 'exact':
      return { kind: 'exact', transaction: payload.base64('transaction') };
    case 'escrow':
      return {
        kind: 'escrow',
        depositTx: payload.base64('depositTx'),
        serviceId: payload.base64('serviceId', SERVICE_ID_BYTES),
        agentPubkey: payload.publicKey('agentPubkey'),
      };
    case 'channel':
      return {
        kind: 'channel',
        voucher: {
          ...payload.camelFields(),
          requestDigest: payload.string('requestDigest'),
          // Solvela's clients send `cumulative_atomic`, a number (docs/decisions.md, "Channels").
          cumulative: payload.has('cumulative') || !payload.has('cumulativeAtomic') ? payload.atomicAmount('cumulative') : String(payload.integer('cumulativeAtomic', 0)),
          expirySlot: payload.integerOrDigits('expirySlot'),
        },
      };
  }
}

/** The payload object as it goes on the wire (camelCase): the voucher itself for a channel. */
function wireFields(payload: SchemePayload): object {
  if (payload.kind === 'channel') return payload.voucher;
  const { kind: _kind, ...fields } = payload;
  return fields;
}
