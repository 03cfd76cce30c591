import type { OnApplicationShutdown } from '@nestjs/common';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../../migrations';
import type { StorageConfig } from '../../config/gateway-config';
import { EmbeddedPostgres } from './embedded-postgres';
import { OrgApiKeyRow, OrgAuditRow, OrgMemberRow, OrgRow, TeamRow, TeamWalletRow } from './entities/org.row';
import { ReceiptRow } from './entities/receipt.row';
import { SpendLogRow } from './entities/spend-log.row';

const ENTITIES = [SpendLogRow, ReceiptRow, OrgRow, OrgMemberRow, TeamRow, TeamWalletRow, OrgApiKeyRow, OrgAuditRow];
/** Arbitrary constant key of the advisory lock that serialises migrations across replicas. */
const MIGRATION_LOCK_KEY = 4_020_402;
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A statement whose answer never comes (a half-open connection to a server that went away) fails
 * after this, rather than holding what waits on it (a claim's lease, a request) forever; every
 * statement of the gateway takes milliseconds.
 */
const QUERY_TIMEOUT_MS = 30_000;

/**
 * The TypeORM data source over PostgreSQL or embedded PGlite, migrated on open. The schema changes
 * only through `migrations/` (never `synchronize`).
 */
export class Database implements OnApplicationShutdown {
  private constructor(
    readonly dataSource: DataSource,
    private readonly embedded: EmbeddedPostgres | null,
  ) {}

  static async open(storage: Exclude<StorageConfig, { kind: 'none' }>): Promise<Database> {
    const embedded = storage.kind === 'pglite' ? await EmbeddedPostgres.start(storage.dataDir) : null;
    const common = {
      type: 'postgres',
      entities: ENTITIES,
      migrations: MIGRATIONS,
      migrationsTableName: 'migrations',
      synchronize: false,
      logging: false,
    } as const;
    const options: DataSourceOptions = embedded
      ? { ...common, host: embedded.host, port: embedded.port, username: 'postgres', database: 'postgres', extra: { max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS } }
      : { ...common, url: storage.kind === 'postgres' ? storage.url.reveal() : undefined, extra: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, query_timeout: QUERY_TIMEOUT_MS, keepAlive: true } };
    const dataSource = new DataSource(options);
    try {
      await dataSource.initialize();
      await migrate(dataSource, embedded === null);
    } catch (err) {
      if (dataSource.isInitialized) await dataSource.destroy();
      await embedded?.stop();
      throw err;
    }
    return new Database(dataSource, embedded);
  }

  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }
}

/** Runs pending migrations; on a shared server, under an advisory lock so concurrent starts take turns. */
async function migrate(dataSource: DataSource, shared: boolean): Promise<void> {
  if (!shared) {
    await dataSource.runMigrations({ transaction: 'each' });
    return;
  }
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.release();
  }
}
