import { GatewayError } from '../../../errors/gateway-error';
import { RATE_LIMITED_MESSAGE, rateLimitHeaders } from '../../rate-limits/domain/rate-limit-headers';
import { PAYMENT_VERIFICATION_FAILED } from './exact-payment';

const REPLAYED_MESSAGE = 'transaction has already been used; each payment signature may only be submitted once';

/** A payment already used (spec 5.3). Carries its replay key, so an answer kept for it can be found (redelivery). */
export class PaymentReplayed extends GatewayError {
  constructor(readonly replayKey: string) {
    super('invalid_payment', REPLAYED_MESSAGE);
  }
}

/** The refusals of a payment (spec 7), each with the spec's wording where it has one. */
export const paymentErrors = {
  tooLarge: (limit: number) => new GatewayError('invalid_payment', `PAYMENT-SIGNATURE exceeds ${limit / 1024} KB`),
  malformed: (detail: string) => new GatewayError('invalid_payment', `malformed PAYMENT-SIGNATURE header: ${detail}`),
  resource: (path: string) => new GatewayError('bad_request', `payment resource does not match this endpoint; use the resource advertised in the 402 (POST ${path})`),
  network: (network: string) => new GatewayError('bad_request', `payment network does not match; use the network advertised in the 402 (${network})`),
  asset: (asset: string) => new GatewayError('bad_request', `payment asset does not match; use the asset advertised in the 402 (${asset})`),
  recipient: (payTo: string) => new GatewayError('bad_request', `payment recipient does not match; use the pay_to advertised in the 402 (${payTo})`),
  insufficient: (paid: bigint, cost: bigint) => new GatewayError('bad_request', `payment amount insufficient: paid ${paid} but cost is ${cost} atomic USDC`),
  scheme: (scheme: string) => new GatewayError('bad_request', `payment scheme ${scheme} is not accepted on this endpoint; use exact`),
  schemeMismatch: (scheme: string, payload: string) => new GatewayError('bad_request', `payment scheme ${scheme} does not match its ${payload} payload`),
  channelUnavailable: () => new GatewayError('not_found', 'channel payments are not available on this gateway'),
  replayed: (replayKey: string) => new PaymentReplayed(replayKey),
  unverifiable: () => new GatewayError('invalid_payment', PAYMENT_VERIFICATION_FAILED),
  expired: () => new GatewayError('invalid_payment', 'payment transaction blockhash has expired; sign a new payment and retry'),
  unconfirmed: () => new GatewayError('invalid_payment', 'Payment transaction could not be confirmed. Please retry.'),
  unfunded: () => new GatewayError('invalid_payment', 'payer has insufficient funds on chain for this payment'),
  shortLived: (lifeSecs: number, minimumSecs: number) =>
    new GatewayError('invalid_payment', `payment transaction blockhash expires in ${lifeSecs} s, less than the ${minimumSecs} s a payment needs; sign a new payment with a fresh blockhash and retry`),
  expiredBeforeAnswer: () =>
    new GatewayError('invalid_payment', 'payment transaction blockhash was about to expire before the answer began; nothing was charged; sign a new payment and retry'),
  notSponsored: (why: string) =>
    new GatewayError('invalid_payment', `the gateway does not sponsor this payment's network fee (${why}); pay the fee yourself: make your wallet the transaction's fee payer and retry`),
  // The spec's one 429 body; the headers say to come back once a payment in flight has settled.
  sourceCommitted: () => new GatewayError('rate_limit_exceeded', RATE_LIMITED_MESSAGE, rateLimitHeaders({ allowed: false, limit: 1, remaining: 0, resetSecs: 1 })),
  replayStoreFull: () => new GatewayError('service_unavailable', 'too many payments in flight on this instance; retry shortly'),
  receiptsUnavailable: () => new GatewayError('service_unavailable', 'receipt storage is unavailable; the payment was not used, retry shortly'),
  settlementFailed: (receiptPath: string | null) =>
    new GatewayError(
      'settlement_failed',
      `the payment could not be settled on chain, so the answer was not delivered; nothing was charged${receiptPath ? `; the receipt ${receiptPath} records the attempt` : ''}`,
    ),
};
