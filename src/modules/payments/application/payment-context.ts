import type { CountedAttempt } from './payment-attempts';
import type { SchemeName } from '../domain/schemes';

/** What the paid request is, as the caller (chat, a tool, A2A) knows it. */
export interface PaymentContext {
  /**
   * The schemes this surface takes (`exact` always): a payload of another scheme is judged by
   * `exact`, which refuses it as not offered, never downgraded (spec 4.7).
   */
  schemes: readonly SchemeName[];
  /** When an `exact` transfer is broadcast: before the handler serves (tools, A2A) or at the answer's first content (chat). */
  exactSettlesAt: 'before_handler' | 'at_first_content';
  /** The endpoint path the payment must name as its resource. */
  path: string;
  /** The quote recomputed from this request, in atomic USDC. */
  quote: bigint;
  requestId: string;
  clientAddress: string;
  /** The attempt, counted by `PaymentAttempts.count` for this client address before the caller's own work. */
  attempt: CountedAttempt;
  /** The request body as received, which a channel voucher's digest binds (REST surfaces taking channels). */
  body?: Uint8Array;
  /** The quoted model, for the receipt (null on tools). */
  model: string | null;
  /**
   * How a payer under a budget is treated: its payment reserved against the budget (chat, the
   * default), or refused with 403 after verification and before the claim, with nothing moved
   * (the paid tools and A2A, which do not carry budgets; docs/decisions.md, "Budgets"), or neither
   * (a channel's funding, which is a deposit, not spend: its draws are what budgets count).
   */
  budgetedPayers?: 'reserve' | 'refuse' | 'exempt';
  /**
   * Whether a durable-nonce transfer is taken (chat, the default: it holds its answer until the
   * transfer lands, and keeps it for a resend), or refused (the paid tools and A2A, which serve once
   * their payment settled and keep no answer for a resend; docs/decisions.md, "Durable nonces").
   */
  durableNonces?: 'hold' | 'refuse';
}
