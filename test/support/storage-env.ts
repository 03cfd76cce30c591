import type { RunningGateway } from '../../src/gateway';
import { startTestGateway } from './gateway-harness';
import { migratedDataDir } from './pglite-data-dir';
import { createTestDatabase } from './postgres';

/** Gateway environment for a fresh database, and how to remove that database afterwards. */
export interface TestStorage {
  env: Record<string, string | undefined>;
  drop: () => Promise<void>;
}

/** Embedded PGlite in a directory of its own. */
export const pgliteStorage = async (): Promise<TestStorage> => ({ env: { GW_STORAGE: undefined, GW_DATA_DIR: await migratedDataDir() }, drop: async () => undefined });

/** A database of its own on the local PostgreSQL server. */
export const postgresStorage = async (): Promise<TestStorage> => {
  const database = await createTestDatabase();
  return { env: { GW_STORAGE: undefined, DATABASE_URL: database.url }, drop: database.drop };
};

/** A gateway on a fresh database of `storage` for the enclosing block's tests, removed after them; `env` adds to its environment. */
export function gatewayOnStorage(storage: () => Promise<TestStorage>, env: Record<string, string | undefined> = {}): () => RunningGateway {
  let gateway: RunningGateway | undefined;
  let drop: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const opened = await storage();
    drop = opened.drop;
    gateway = await startTestGateway({ ...opened.env, ...env });
  });
  afterAll(async () => {
    await gateway?.close();
    await drop();
  });
  return () => {
    if (!gateway) throw new Error('the gateway starts in beforeAll');
    return gateway;
  };
}
