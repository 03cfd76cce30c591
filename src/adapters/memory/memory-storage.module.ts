import { Global, Module } from '@nestjs/common';
import { SpendLog } from '../../modules/billing/ports/spend-log';
import { BudgetReservations, UnlimitedBudgets } from '../../modules/payments/ports/budget-reservations';
import { MemorySpendLog } from './memory-spend-log';

/**
 * GW_STORAGE=none: the spend log in memory, and no ReceiptStore, Leases or BudgetStore provider,
 * which storage-backed routes read as "not configured". Budgets live in storage, so without it
 * every paid request is admitted.
 */
@Global()
@Module({
  providers: [
    { provide: SpendLog, useFactory: () => new MemorySpendLog() },
    { provide: BudgetReservations, useClass: UnlimitedBudgets },
  ],
  exports: [SpendLog, BudgetReservations],
})
export class MemoryStorageModule {}
