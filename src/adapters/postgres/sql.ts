import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';

/** Longest error text kept: enough to tell why, bounded whatever a provider or the chain answered. */
export const ERROR_CHARS = 500;

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** The rows an UPDATE … RETURNING returned: TypeORM answers an UPDATE with [rows, affected] rather than the rows alone. */
export async function updated<T>(db: DataSource | EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  const [rows] = (await db.query(sql, parameters)) as [T[], number];
  return rows;
}

/** The constraint a unique violation names, or null for any other error. */
export function uniqueViolation(err: unknown): string | null {
  if (!(err instanceof QueryFailedError)) return null;
  const driverError = err.driverError as { code?: unknown; constraint?: unknown };
  return driverError.code === UNIQUE_VIOLATION && typeof driverError.constraint === 'string' ? driverError.constraint : null;
}
