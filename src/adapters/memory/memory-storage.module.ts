import { Global, Module } from '@nestjs/common';
import { SpendLog } from '../../modules/billing/ports/spend-log';
import { MemorySpendLog } from './memory-spend-log';

/**
 * GW_STORAGE=none: the spend log in memory, and no ReceiptStore or Leases provider, which
 * storage-backed routes read as "not configured".
 */
@Global()
@Module({
  providers: [{ provide: SpendLog, useFactory: () => new MemorySpendLog() }],
  exports: [SpendLog],
})
export class MemoryStorageModule {}
