import { formatUsdc } from '../../billing/domain/atomic-usdc';
import type { Delivery, EscrowReceipt, Receipt, ReceiptStatus } from '../domain/receipt';

/** A receipt on the wire (spec 2.10, docs/decisions.md): snake_case, atomic amounts as integer strings. */
export interface ReceiptView {
  id: string;
  object: 'receipt';
  status: ReceiptStatus;
  scheme: Receipt['scheme'];
  network: string;
  asset: string;
  payer_wallet: string;
  pay_to: string;
  transaction_signature: string;
  amount_quoted_atomic: string;
  amount_paid_atomic: string;
  amount_charged_atomic: string;
  amount_charged_usdc: string;
  endpoint: string;
  model: string | null;
  request_id: string;
  created_at: string;
  /** Null until settlement completes (and when nothing was settled). */
  settled_at: string | null;
  /** What the payer received; null until the request ended (and when nothing was charged). */
  delivery: Delivery | null;
  /** When the payment was handed to the chain; null while it never was. The signed bytes are never shown. */
  broadcast_at: string | null;
  /** Escrow payments only. */
  escrow?: EscrowView;
}

/**
 * An escrow payment's deposit and where it went: `claimed_atomic` to the provider, the rest
 * (`refunded_atomic`) back to the agent, by the claim or, when nothing is claimed, by the agent's
 * refund at expiry. Both are null while the claim is pending.
 */
export interface EscrowView {
  address: string;
  expiry_slot: string;
  deposit_atomic: string;
  claimed_atomic: string | null;
  refunded_atomic: string | null;
  claim_signature: string | null;
}

export function receiptView(receipt: Receipt): ReceiptView {
  return {
    id: receipt.id,
    object: 'receipt',
    status: receipt.status,
    scheme: receipt.scheme,
    network: receipt.network,
    asset: receipt.asset,
    payer_wallet: receipt.payerWallet,
    pay_to: receipt.payTo,
    transaction_signature: receipt.transactionSignature,
    amount_quoted_atomic: receipt.amountQuotedAtomic.toString(),
    amount_paid_atomic: receipt.amountPaidAtomic.toString(),
    amount_charged_atomic: receipt.amountChargedAtomic.toString(),
    amount_charged_usdc: formatUsdc(receipt.amountChargedAtomic),
    endpoint: receipt.endpoint,
    model: receipt.model,
    request_id: receipt.requestId,
    created_at: receipt.createdAt.toISOString(),
    settled_at: receipt.settledAt?.toISOString() ?? null,
    delivery: receipt.delivery,
    broadcast_at: receipt.broadcastAt?.toISOString() ?? null,
    ...(receipt.escrow ? { escrow: escrowView(receipt, receipt.escrow) } : {}),
  };
}

function escrowView(receipt: Receipt, escrow: EscrowReceipt): EscrowView {
  const claimed = receipt.status === 'pending' ? null : receipt.amountChargedAtomic;
  return {
    address: escrow.address,
    expiry_slot: escrow.expirySlot.toString(),
    deposit_atomic: receipt.amountPaidAtomic.toString(),
    claimed_atomic: claimed === null ? null : claimed.toString(),
    refunded_atomic: claimed === null ? null : (receipt.amountPaidAtomic - claimed).toString(),
    claim_signature: escrow.claimSignature,
  };
}
