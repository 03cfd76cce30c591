import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { StorageConfig } from '../config/gateway-config';
import { SpendLog } from '../modules/billing/ports/spend-log';
import { Leases } from '../modules/payments/ports/leases';
import { ReceiptStore } from '../modules/payments/ports/receipt-store';
import { MemorySpendLog } from './memory/memory-spend-log';
import { Database } from './postgres/database';
import { PostgresLeases } from './postgres/postgres-leases';
import { PostgresReceiptStore } from './postgres/postgres-receipt-store';
import { PostgresSpendLog } from './postgres/postgres-spend-log';

/**
 * Chooses the storage adapters from configuration: PostgreSQL (DATABASE_URL), embedded PGlite
 * (the default) or none (GW_STORAGE=none: in-memory adapters, and no Database, ReceiptStore or
 * Leases provider, which storage-backed routes read as "not configured").
 */
@Global()
@Module({})
export class StorageModule {
  static forRoot(storage: StorageConfig): DynamicModule {
    if (storage.kind === 'none') {
      return { module: StorageModule, providers: [{ provide: SpendLog, useValue: new MemorySpendLog() }], exports: [SpendLog] };
    }
    return {
      module: StorageModule,
      providers: [
        { provide: Database, useFactory: () => Database.open(storage) },
        { provide: SpendLog, useFactory: (db: Database) => new PostgresSpendLog(db.dataSource), inject: [Database] },
        { provide: ReceiptStore, useFactory: (db: Database) => new PostgresReceiptStore(db.dataSource), inject: [Database] },
        { provide: Leases, useFactory: (db: Database) => new PostgresLeases(db.dataSource), inject: [Database] },
      ],
      exports: [Database, SpendLog, ReceiptStore, Leases],
    };
  }
}
