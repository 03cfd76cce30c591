import { ConfigError } from '../config/env-reader';

/** Upper bound on GW_WORKERS: a typo such as 80 instead of 8 should stop the start, not fork a crowd. */
export const MAX_WORKERS = 256;

export interface WorkerCountInput {
  /** GW_WORKERS as set; blank counts as unset. */
  value: string | undefined;
  /** CPU cores available to this process (`os.availableParallelism()`). */
  cores: number;
  /** DATABASE_URL is set: storage is a PostgreSQL server every worker can reach. */
  hasDatabase: boolean;
  /** REDIS_URL is set: limits and caches are shared instead of per process. */
  hasRedis: boolean;
}

export interface WorkerCount {
  count: number;
  /** Why `auto` settled for fewer workers than cores; worth a warning in the log. */
  notice?: string;
}

/**
 * How many worker processes GW_WORKERS asks for. More than one needs DATABASE_URL and REDIS_URL:
 * replay protection, rate limits, budgets and receipts are shared state, and embedded PGlite serves
 * one process. An explicit number without them is a configuration error; `auto` falls back to one.
 */
export function workerCount({ value, cores, hasDatabase, hasRedis }: WorkerCountInput): WorkerCount {
  const raw = value?.trim();
  if (!raw) return { count: 1 };
  const missing = [hasDatabase ? null : 'DATABASE_URL', hasRedis ? null : 'REDIS_URL'].filter((name): name is string => name !== null);
  if (raw === 'auto') {
    const count = Math.min(MAX_WORKERS, Math.max(1, Math.floor(cores)));
    if (count === 1 || missing.length === 0) return { count };
    return { count: 1, notice: `GW_WORKERS=auto starts one worker, not ${count}: more than one needs ${sharedStateReason(missing)}` };
  }
  const count = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_WORKERS) {
    throw new ConfigError(`GW_WORKERS must be "auto" or an integer between 1 and ${MAX_WORKERS} (got "${raw}")`);
  }
  if (count > 1 && missing.length > 0) throw new ConfigError(`GW_WORKERS=${count} needs ${sharedStateReason(missing)}`);
  return { count };
}

function sharedStateReason(missing: readonly string[]): string {
  return `DATABASE_URL and REDIS_URL, for replay protection, limits, budgets and receipts shared between workers (${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} unset)`;
}
