import type { GatewayError } from '../../../errors/gateway-error';
import type { ReceiptStatus } from '../domain/receipt';

/**
 * Budgets (docs/decisions.md, "The durable claim, receipts and the reconciler", its budget seam): a paid request reserves what it pays against every budget
 * of its payer before the provider is called, keyed by its receipt id, and the reservation follows
 * the receipt: converted at `settled`, held while `pending`, released at `failed` or `not_charged`.
 * Enterprise budgets plug in here; the default admits everything.
 */
export abstract class BudgetReservations {
  /** Null when reserved, else the refusal to answer with (spec 4.9: 400 `budget exceeded for wallet ...`). */
  abstract reserve(receiptId: string, payerWallet: string, amountAtomic: bigint): Promise<GatewayError | null>;

  /**
   * The receipt reached a final status. `chargedAtomic`, when given for `settled`, is what was
   * really taken (an escrow claim, at most the deposit reserved): the spend counts that.
   */
  abstract follow(receiptId: string, status: Exclude<ReceiptStatus, 'pending'>, chargedAtomic?: bigint): Promise<void>;

  /**
   * Reservations still held whose receipt has ended follow it now: the follow after a receipt's
   * end is a second write, lost when the instance died (or storage failed) between the two.
   * Returns how many followed.
   */
  abstract followEnded(): Promise<number>;

  /** Whether the payer has a budget of its own or is in a team that has one. */
  abstract isBudgeted(payerWallet: string): Promise<boolean>;
}

export class UnlimitedBudgets extends BudgetReservations {
  reserve(): Promise<GatewayError | null> {
    return Promise.resolve(null);
  }

  follow(): Promise<void> {
    return Promise.resolve();
  }

  followEnded(): Promise<number> {
    return Promise.resolve(0);
  }

  isBudgeted(): Promise<boolean> {
    return Promise.resolve(false);
  }
}
