import { Global, Module } from '@nestjs/common';
import { TaskLocks, TaskStore } from '../../modules/a2a/ports/task-store';
import { RedeliveryStore } from '../../modules/chat/ports/redelivery-store';
import { ResponseCache } from '../../modules/chat/ports/response-cache';
import { ExposureLedger } from '../../modules/payments/ports/exposure-ledger';
import { ReplayStore } from '../../modules/payments/ports/replay-store';
import { SponsorshipLedger } from '../../modules/payments/ports/sponsorship-ledger';
import { RateLimitStore } from '../../modules/rate-limits/ports/rate-limit-store';
import { MemoryExposureLedger } from './memory-exposure-ledger';
import { MemoryRateLimitStore } from './memory-rate-limit-store';
import { MemoryRedeliveryStore } from './memory-redelivery-store';
import { MemoryReplayStore } from './memory-replay-store';
import { MemoryTaskLocks, MemoryTaskStore } from './memory-task-store';
import { MemoryResponseCache } from './memory-response-cache';
import { MemorySponsorshipLedger } from './memory-sponsorship-ledger';

/** The shared-state ports held in this instance's memory (no REDIS_URL): nothing is shared between instances. */
@Global()
@Module({
  providers: [
    { provide: RateLimitStore, useFactory: () => new MemoryRateLimitStore() },
    { provide: ReplayStore, useFactory: () => new MemoryReplayStore() },
    { provide: ExposureLedger, useFactory: () => new MemoryExposureLedger() },
    { provide: SponsorshipLedger, useFactory: () => new MemorySponsorshipLedger() },
    { provide: RedeliveryStore, useFactory: () => new MemoryRedeliveryStore() },
    { provide: ResponseCache, useFactory: () => new MemoryResponseCache() },
    { provide: TaskStore, useFactory: () => new MemoryTaskStore() },
    { provide: TaskLocks, useFactory: () => new MemoryTaskLocks() },
  ],
  exports: [RateLimitStore, ReplayStore, ExposureLedger, SponsorshipLedger, RedeliveryStore, ResponseCache, TaskStore, TaskLocks],
})
export class MemoryStateModule {}
