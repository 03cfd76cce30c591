import { GatewayError } from '../../../errors/gateway-error';
import { RATE_LIMITED_MESSAGE, rateLimitHeaders } from '../../rate-limits/domain/rate-limit-headers';
import { PAYMENT_VERIFICATION_FAILED } from './exact-payment';

const REPLAYED_MESSAGE = 'transaction has already been used; each payment signature may only be submitted once';

/**
 * A payment already used (spec 5.3). Carries its replay key, so an answer kept for it can be found
 * (redelivery), and what to refuse with when none is (`otherwise`: a channel voucher is stale).
 */
export class PaymentReplayed extends GatewayError {
  constructor(
    readonly replayKey: string,
    readonly otherwise: GatewayError | null = null,
  ) {
    super('payment.replayed', REPLAYED_MESSAGE);
  }
}

/** The refusals of a payment (spec 7), each with the spec's wording where it has one. */
export const paymentErrors = {
  budgetedPayer: (payer: string) => new GatewayError('budget.payer_budgeted', `payer wallet ${payer} is under a per-tenant budget; budgeted wallets pay through /v1/chat/completions or /v1/messages`),
  tooLarge: (limit: number) => new GatewayError('payment.header_too_large', `PAYMENT-SIGNATURE exceeds ${limit / 1024} KB`),
  malformed: (detail: string) => new GatewayError('payment.malformed', `malformed PAYMENT-SIGNATURE header: ${detail}`),
  resource: (path: string) => new GatewayError('payment.resource_mismatch', `payment resource does not match this endpoint; use the resource advertised in the 402 (POST ${path})`),
  network: (network: string) => new GatewayError('payment.network_mismatch', `payment network does not match; use the network advertised in the 402 (${network})`),
  asset: (asset: string) => new GatewayError('payment.asset_mismatch', `payment asset does not match; use the asset advertised in the 402 (${asset})`),
  recipient: (payTo: string) => new GatewayError('payment.recipient_mismatch', `payment recipient does not match; use the pay_to advertised in the 402 (${payTo})`),
  insufficient: (paid: bigint, cost: bigint) => new GatewayError('payment.amount_insufficient', `payment amount insufficient: paid ${paid} but cost is ${cost} atomic USDC`),
  scheme: (scheme: string) => new GatewayError('payment.scheme_not_accepted', `payment scheme ${scheme} is not accepted on this endpoint; use exact`),
  schemeMismatch: (scheme: string, payload: string) => new GatewayError('payment.scheme_payload_mismatch', `payment scheme ${scheme} does not match its ${payload} payload`),
  escrowNotAccepted: () => new GatewayError('payment.scheme_payload_mismatch', 'escrow payments are not accepted on this endpoint; pay with the exact scheme advertised in the 402'),
  escrowExpiry: (expirySlot: bigint, min: bigint, max: bigint) =>
    new GatewayError('payment.escrow_expiry_outside_window', `deposit expiry_slot ${expirySlot} is outside the accepted window ${min} to ${max}; see GET /v1/escrow/config and sign a new deposit`),
  escrowExists: () => new GatewayError('payment.escrow_exists', 'an escrow for this agent and service_id already exists; every request needs a fresh service_id'),
  escrowBarred: (wallet: string) => new GatewayError('payment.escrow_barred', `wallet ${wallet} may no longer pay with escrow (a claim crediting it was rejected by the program); pay with exact`),
  escrowBelowMinimum: (minimum: bigint) =>
    new GatewayError('payment.escrow_below_minimum', `escrow is accepted only for quotes of at least ${minimum} atomic USDC (GW_ESCROW_MIN_ATOMIC); pay this request with exact`),
  escrowSuspended: () => new GatewayError('payment.escrow_suspended', 'escrow is not accepted for now: its claim fees have reached their hourly bound; pay with exact, or see GET /v1/escrow/config'),
  channelUnavailable: () => new GatewayError('payment.channel_unavailable', 'channel payments are not available on this gateway'),
  replayed: (replayKey: string) => new PaymentReplayed(replayKey),
  /** `rejection` (kept as the cause, for logs and for a caller that names some reasons) is never shown: spec 7 has one answer for every refused transaction. */
  unverifiable: (rejection?: Error) => new GatewayError('payment.unverifiable', PAYMENT_VERIFICATION_FAILED, {}, rejection ? { cause: rejection } : undefined),
  expired: () => new GatewayError('payment.blockhash_expired', 'payment transaction blockhash has expired; sign a new payment and retry'),
  unconfirmed: () => new GatewayError('payment.unconfirmed', 'Payment transaction could not be confirmed. Please retry with the same payment: it was sent and may still land.'),
  depositUnconfirmed: () =>
    new GatewayError('payment.deposit_unconfirmed', 'the escrow deposit could not be confirmed in time; it will never be claimed: refund it at expiry, and send a new deposit to retry'),
  /** Not a verdict on the payment: nothing was sent, so the same payment (or a new one) may be tried again. */
  chainUnreachable: () =>
    new GatewayError('payment.chain_unreachable', 'Payment transaction could not be confirmed. Please retry: the Solana network did not answer while the payment was checked, and nothing was moved.'),
  unfunded: () => new GatewayError('payment.insufficient_funds', 'payer has insufficient funds on chain for this payment'),
  shortLived: (lifeSecs: number, minimumSecs: number) =>
    new GatewayError(
      'payment.blockhash_short_lived',
      `payment transaction blockhash expires in ${lifeSecs} s, less than the ${minimumSecs} s a payment needs; sign a new payment with a fresh blockhash and retry`,
    ),
  expiredBeforeAnswer: () =>
    new GatewayError('payment.expired_before_answer', 'payment transaction blockhash was about to expire before the answer began; nothing was charged; sign a new payment and retry'),
  notSponsored: (why: string) =>
    new GatewayError('payment.fee_not_sponsored', `the gateway does not sponsor this payment's network fee (${why}); pay the fee yourself: make your wallet the transaction's fee payer and retry`),
  // The spec's one 429 body; the headers say to come back once a payment in flight has settled.
  sourceCommitted: () => new GatewayError('rate_limit.payment_in_flight', RATE_LIMITED_MESSAGE, rateLimitHeaders({ allowed: false, limit: 1, remaining: 0, resetSecs: 1 })),
  replayStoreFull: () => new GatewayError('payment.replay_store_full', 'too many payments in flight on this instance; retry shortly'),
  receiptsUnavailable: () => new GatewayError('receipt.storage_unavailable', 'receipt storage is unavailable; the payment was not used, retry shortly'),
  reverted: () => new GatewayError('payment.settlement_reverted', 'the payment landed on chain with an error and moved no funds; nothing was charged'),
  settlementFailed: (receiptPath: string | null) =>
    new GatewayError(
      'payment.settlement_failed',
      `the payment could not be settled on chain, so the answer was not delivered; nothing was charged${receiptPath ? `; the receipt ${receiptPath} records the attempt` : ''}`,
    ),
};
