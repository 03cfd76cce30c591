/** Where a broadcast payment stands once the confirmation window is over. */
export interface Settlement {
  /** `pending`: sent but not confirmed in the window; the reconciler finishes the receipt. */
  status: 'settled' | 'failed' | 'pending';
  /** The standard x402 `PAYMENT-RESPONSE` header value, once settled. */
  paymentResponse: string | null;
}
