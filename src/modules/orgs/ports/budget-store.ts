import type { Actor } from '../domain/org';
import type { BudgetLimits, BudgetSpend, BudgetSubject } from '../domain/budget';

/**
 * Budget limits and their spend, in the same database as the reservations that the paid path makes
 * through the payments module's BudgetReservations port (one adapter serves both).
 */
export abstract class BudgetStore {
  /** Replaces all three limits (an omitted window is uncapped); a team budget's change is audited in its org. */
  abstract setLimits(subject: BudgetSubject, limits: BudgetLimits, actor: Actor): Promise<void>;

  /** Null when the subject has no budget. */
  abstract limits(subject: BudgetSubject): Promise<BudgetLimits | null>;

  /** Settled spend in the windows holding `now` (a reservation counts in the window it was made in). */
  abstract spend(subject: BudgetSubject, now: Date): Promise<BudgetSpend>;
}
