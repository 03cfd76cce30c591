/** A budget's windows (spec 2.11): calendar windows in UTC, each capped or not. */
export const BUDGET_WINDOWS = ['hourly', 'daily', 'monthly'] as const;
export type BudgetWindow = (typeof BUDGET_WINDOWS)[number];

/** Atomic USDC per window; null leaves the window uncapped. */
export type BudgetLimits = Record<BudgetWindow, bigint | null>;

/** Spend per window, atomic USDC. */
export type BudgetSpend = Record<BudgetWindow, bigint>;

/** Whose budget: a team's (spend of every wallet in it), or one payer wallet's own. */
export type BudgetSubject = { kind: 'team'; orgId: string; teamId: string } | { kind: 'wallet'; wallet: string };

/** Where the window holding `now` began: the hour, the day from 00:00, the month from the 1st, all UTC. */
export function windowStart(window: BudgetWindow, now: Date): Date {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  if (window === 'monthly') return new Date(Date.UTC(year, month, 1));
  const day = now.getUTCDate();
  if (window === 'daily') return new Date(Date.UTC(year, month, day));
  return new Date(Date.UTC(year, month, day, now.getUTCHours()));
}
