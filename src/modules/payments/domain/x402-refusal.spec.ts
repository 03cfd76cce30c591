import { x402Refusal } from './x402-refusal';

describe('the x402 reason of a refused payment', () => {
  it('names verification refusals and settlement failures as @x402/svm does', () => {
    expect(x402Refusal('payment.replayed')).toEqual({ kind: 'verification', reason: 'duplicate_settlement' });
    expect(x402Refusal('payment.malformed')).toEqual({ kind: 'verification', reason: 'invalid_exact_svm_payload_transaction_could_not_be_decoded' });
    expect(x402Refusal('payment.blockhash_expired')).toEqual({ kind: 'verification', reason: 'invalid_exact_svm_payload_transaction' });
    expect(x402Refusal('payment.insufficient_funds')).toEqual({ kind: 'verification', reason: 'invalid_exact_svm_transaction_simulation_failed' });
    expect(x402Refusal('payment.fee_not_sponsored')).toEqual({ kind: 'verification', reason: 'invalid_exact_svm_fee_payer_not_managed_by_facilitator' });
    expect(x402Refusal('payment.unconfirmed')).toEqual({ kind: 'settlement', reason: 'settlement_pending' });
    expect(x402Refusal('payment.deposit_unconfirmed')).toEqual({ kind: 'settlement', reason: 'post_settlement_transfer_not_confirmed' });
    expect(x402Refusal('payment.settlement_reverted')).toEqual({ kind: 'settlement', reason: 'invalid_exact_svm_transaction_failed' });
  });

  it('leaves the 400 mismatches, budgets and limits without an x402 header', () => {
    for (const code of ['payment.chain_unreachable', 'payment.recipient_mismatch', 'payment.network_mismatch', 'payment.amount_insufficient', 'budget.exceeded', 'rate_limit.exceeded'] as const)
      expect(x402Refusal(code)).toBeNull();
  });
});
