import { tempDir } from './gateway-harness';
import { createTestDatabase } from './postgres';

/** Gateway environment for a fresh database, and how to remove that database afterwards. */
export interface TestStorage {
  env: Record<string, string | undefined>;
  drop: () => Promise<void>;
}

/** Embedded PGlite in a directory of its own. */
export const pgliteStorage = async (): Promise<TestStorage> => ({ env: { GW_STORAGE: undefined, GW_DATA_DIR: tempDir() }, drop: async () => undefined });

/** A database of its own on the local PostgreSQL server. */
export const postgresStorage = async (): Promise<TestStorage> => {
  const database = await createTestDatabase();
  return { env: { GW_STORAGE: undefined, DATABASE_URL: database.url }, drop: database.drop };
};
