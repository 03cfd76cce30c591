import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { StorageConfig } from '../../config/gateway-config';
import { SpendLog } from '../../modules/billing/ports/spend-log';
import { DatabaseProbe } from '../../modules/ops/ports/dependency-probe';
import { OrgApiKeys } from '../../modules/orgs/ports/org-api-keys';
import { OperatorAudit } from '../../modules/orgs/ports/operator-audit';
import { OrgStore } from '../../modules/orgs/ports/org-store';
import { BudgetStore } from '../../modules/orgs/ports/budget-store';
import { BudgetReservations } from '../../modules/payments/ports/budget-reservations';
import { ChannelLedger } from '../../modules/payments/ports/channel-ledger';
import { EscrowClaims } from '../../modules/payments/ports/escrow-claims';
import { Leases } from '../../modules/payments/ports/leases';
import { ReceiptStore } from '../../modules/payments/ports/receipt-store';
import { WalletUsage } from '../../modules/orgs/ports/wallet-usage';
import { ServiceStore } from '../../modules/tools/ports/service-store';
import { Database } from './database';
import { PostgresBudgetReservations, PostgresBudgetStore } from './postgres-budgets';
import { PostgresChannelLedger } from './postgres-channel-ledger';
import { PostgresEscrowClaims } from './postgres-escrow-claims';
import { PostgresLeases } from './postgres-leases';
import { PostgresOperatorAudit, PostgresOrgApiKeys, PostgresOrgStore } from './postgres-org-store';
import { PostgresReceiptStore } from './postgres-receipt-store';
import { PostgresServiceStore } from './postgres-service-store';
import { PostgresSpendLog } from './postgres-spend-log';
import { PostgresWalletUsage } from './postgres-wallet-usage';

/** The storage ports on PostgreSQL (DATABASE_URL) or embedded PGlite (the default), over one migrated Database. */
@Global()
@Module({})
export class PostgresStorageModule {
  static forRoot(storage: Exclude<StorageConfig, { kind: 'none' }>): DynamicModule {
    return {
      module: PostgresStorageModule,
      providers: [
        { provide: Database, useFactory: () => Database.open(storage) },
        { provide: DatabaseProbe, useExisting: Database },
        { provide: SpendLog, useFactory: (db: Database) => new PostgresSpendLog(db.dataSource), inject: [Database] },
        { provide: ReceiptStore, useFactory: (db: Database) => new PostgresReceiptStore(db.dataSource), inject: [Database] },
        { provide: Leases, useFactory: (db: Database) => new PostgresLeases(db.dataSource), inject: [Database] },
        { provide: OrgStore, useFactory: (db: Database) => new PostgresOrgStore(db.dataSource), inject: [Database] },
        { provide: OrgApiKeys, useFactory: (db: Database) => new PostgresOrgApiKeys(db.dataSource), inject: [Database] },
        { provide: OperatorAudit, useFactory: (db: Database) => new PostgresOperatorAudit(db.dataSource), inject: [Database] },
        { provide: BudgetStore, useFactory: (db: Database) => new PostgresBudgetStore(db.dataSource), inject: [Database] },
        { provide: BudgetReservations, useFactory: (db: Database) => new PostgresBudgetReservations(db.dataSource), inject: [Database] },
        { provide: WalletUsage, useFactory: (db: Database) => new PostgresWalletUsage(db.dataSource), inject: [Database] },
        { provide: ServiceStore, useFactory: (db: Database) => new PostgresServiceStore(db.dataSource), inject: [Database] },
        { provide: EscrowClaims, useFactory: (db: Database) => new PostgresEscrowClaims(db.dataSource), inject: [Database] },
        { provide: ChannelLedger, useFactory: (db: Database) => new PostgresChannelLedger(db.dataSource), inject: [Database] },
      ],
      exports: [DatabaseProbe, SpendLog, ReceiptStore, Leases, OrgStore, OrgApiKeys, OperatorAudit, BudgetStore, BudgetReservations, WalletUsage, ServiceStore, EscrowClaims, ChannelLedger],
    };
  }
}
