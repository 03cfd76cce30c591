/**
 * x402 v2 wire forms of the gateway, framework-free.
 *
 * Hand-written rather than taken from `@x402/core`: that package is a dev dependency here (the
 * official client in tests), its header decoders only base64-decode and `JSON.parse` with no
 * checks, and it knows only camelCase, while the spec's body and payload forms are snake_case.
 * The interop tests (`official-interop.spec.ts`) hold these codecs to the official packages.
 */
export {
  X402_VERSION,
  USDC_DECIMALS,
  toHeaderForm,
  encodePaymentRequiredHeader,
  decodePaymentRequiredHeader,
  type Scheme,
  type PaymentResource,
  type PaymentRequirementsSnake,
  type CostBreakdown,
  type PaymentRequiredBody,
  type ExactExtra,
  type HeaderPaymentRequirements,
  type PaymentRequiredHeader,
} from './challenge';
export type { PaymentRequirements } from './payment-requirements';
export { isNetwork, type Network } from './network';
export {
  decodePaymentSignature,
  encodePaymentSignature,
  paymentPayloadJson,
  type PaidResource,
  type ExactPayload,
  type EscrowPayload,
  type ChannelVoucher,
  type ChannelPayload,
  type SchemePayload,
  type PaymentPayload,
} from './payment-payload';
export { encodePaymentResponseHeader, decodePaymentResponseHeader, type SettleResponse } from './payment-response';
export { X402DecodeError, PaymentPayloadError } from './errors';
export { inBothCasings, inOneCasing, type Casing } from './casing';
