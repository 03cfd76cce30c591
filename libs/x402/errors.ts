/** A header or payload that does not decode to the x402 shape. Messages name the field, never echo the input. */
export class X402DecodeError extends Error {
  override name = 'X402DecodeError';
}

/** A malformed `PAYMENT-SIGNATURE` value: the gateway answers it with 402 `invalid_payment`. */
export class PaymentPayloadError extends X402DecodeError {
  override name = 'PaymentPayloadError';
}

export type DecodeErrorClass = new (message: string) => X402DecodeError;
