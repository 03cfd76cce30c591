import { decodeBase64Json, encodeBase64Json } from './base64-json';
import { X402DecodeError } from './errors';
import type { Network } from './network';
import { WireObject } from './wire-object';

const HEADER = 'PAYMENT-RESPONSE';

/** The `PAYMENT-RESPONSE` header: the x402 v2 `SettleResponse` (camelCase), the fields this gateway reports. */
export interface SettleResponse {
  readonly success: boolean;
  /** The settled transaction's signature, base58; empty when settlement failed before broadcast. */
  readonly transaction: string;
  readonly network: Network;
  /** The payer's wallet. */
  readonly payer?: string;
  readonly errorReason?: string;
  /** What else the server says of it; this gateway: `confirmed: false` on a stream's headers, sent once the transfer was broadcast and before it confirmed. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export function encodePaymentResponseHeader(settle: SettleResponse): string {
  return encodeBase64Json(settle);
}

/** For clients and tests; throws X402DecodeError. */
export function decodePaymentResponseHeader(value: string): SettleResponse {
  const settle = WireObject.root(decodeBase64Json(value, HEADER, X402DecodeError), HEADER, X402DecodeError, 'camel');
  return {
    success: settle.boolean('success'),
    transaction: settle.string('transaction'),
    network: settle.network('network'),
    payer: settle.optionalPublicKey('payer'),
    errorReason: settle.optionalString('errorReason'),
  };
}
