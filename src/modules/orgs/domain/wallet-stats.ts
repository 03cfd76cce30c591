/** One group of a wallet's charged requests (spec: wallet stats): counts, atomic spend, tokens in and out together. */
export interface UsageTotals {
  requests: number;
  spendAtomic: bigint;
  tokens: number;
}

/** A payer wallet's charged requests over its last days, in all, by model and by UTC day. */
export interface WalletStats extends UsageTotals {
  byModel: Array<UsageTotals & { model: string }>;
  byDay: Array<UsageTotals & { date: string }>;
}

export const STATS_DAYS = { min: 1, max: 90, default: 30 } as const;

/** The first instant counted by `days`: 00:00 UTC, `days - 1` days before today. */
export function statsSince(days: number, now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
}
