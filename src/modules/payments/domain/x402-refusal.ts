import { encodePaymentResponseHeader, type Network } from '../../../../libs/x402';
import type { ErrorCode } from '../../../errors/error-codes';

/**
 * What an x402 client is told, besides the envelope, when a payment is refused: a verification
 * refusal comes with a fresh `PAYMENT-REQUIRED` whose `error` names the reason, a settlement failure
 * with a `PAYMENT-RESPONSE` of `success: false` (the official `@x402/core` server's behaviour). The
 * reasons are the ones `@x402/svm` names (docs/decisions.md, "x402 headers on refusals"). Codes not
 * listed (the 400 mismatches of spec 7, budgets, limits, a chain that did not answer) carry no x402
 * header: they are no verdict on the payment.
 */
export type X402Refusal = { kind: 'verification' | 'settlement'; reason: string };

const UNDECODABLE = 'invalid_exact_svm_payload_transaction_could_not_be_decoded';
const INVALID_TRANSACTION = 'invalid_exact_svm_payload_transaction';
const SIMULATION_FAILED = 'invalid_exact_svm_transaction_simulation_failed';

const REFUSALS: Partial<Record<ErrorCode, X402Refusal>> = {
  'payment.replayed': { kind: 'verification', reason: 'duplicate_settlement' },
  'payment.header_too_large': { kind: 'verification', reason: UNDECODABLE },
  'payment.malformed': { kind: 'verification', reason: UNDECODABLE },
  'payment.unverifiable': { kind: 'verification', reason: INVALID_TRANSACTION },
  'payment.blockhash_expired': { kind: 'verification', reason: INVALID_TRANSACTION },
  'payment.blockhash_short_lived': { kind: 'verification', reason: INVALID_TRANSACTION },
  'payment.expired_before_answer': { kind: 'verification', reason: INVALID_TRANSACTION },
  'payment.escrow_expiry_outside_window': { kind: 'verification', reason: INVALID_TRANSACTION },
  'payment.escrow_exists': { kind: 'verification', reason: INVALID_TRANSACTION },
  'payment.insufficient_funds': { kind: 'verification', reason: SIMULATION_FAILED },
  // @x402/svm 2.27.0's exact facilitator spells it so (docs/decisions.md, "x402 headers on refusals").
  'payment.fee_not_sponsored': { kind: 'verification', reason: 'invalid_exact_svm_fee_payer_not_managed_by_facilitator' },
  // Sent and not confirmed: x402's non-terminal reason, whose client resends the same payment and never signs a second.
  'payment.unconfirmed': { kind: 'settlement', reason: 'settlement_pending' },
  // Sent, not confirmed, and given up (never claimed): terminal, so a new deposit is safe.
  'payment.deposit_unconfirmed': { kind: 'settlement', reason: 'post_settlement_transfer_not_confirmed' },
  'payment.settlement_failed': { kind: 'settlement', reason: SIMULATION_FAILED },
  'payment.settlement_reverted': { kind: 'settlement', reason: 'invalid_exact_svm_transaction_failed' },
};

export function x402Refusal(code: ErrorCode): X402Refusal | null {
  return REFUSALS[code] ?? null;
}

/** The `PAYMENT-RESPONSE` of a failed settlement of `transaction` (empty when none was sent), when `code` is one; else nothing. */
export function failedSettlementHeader(code: ErrorCode, transaction: string, network: Network): Record<string, string> {
  const refusal = x402Refusal(code);
  if (refusal?.kind !== 'settlement') return {};
  return { 'PAYMENT-RESPONSE': encodePaymentResponseHeader({ success: false, errorReason: refusal.reason, transaction, network }) };
}
