import { Module } from '@nestjs/common';
import { SpendRecorder } from './application/spend-recorder';

/** Prices and the spend log: the one writer of spend rows; the SpendLog port comes from the storage adapter module. */
@Module({
  providers: [SpendRecorder],
  exports: [SpendRecorder],
})
export class BillingModule {}
