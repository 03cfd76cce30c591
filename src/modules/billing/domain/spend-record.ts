/** One served request's charge: a row of the spend log. Amounts are atomic USDC (6 decimals). */
export interface SpendRecord {
  requestId: string;
  /** Null for requests served free (no payer). */
  payerWallet: string | null;
  model: string;
  provider: string;
  tokensIn: number;
  tokensOut: number;
  amountChargedAtomic: bigint;
  createdAt: Date;
}
