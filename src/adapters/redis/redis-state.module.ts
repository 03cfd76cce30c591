import { Global, Module, type DynamicModule, type FactoryProvider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Secret } from '../../config/secret';
import { AppLogger } from '../../logging/app-logger';
import { TaskLocks, TaskStore } from '../../modules/a2a/ports/task-store';
import { RedeliveryStore } from '../../modules/chat/ports/redelivery-store';
import { ResponseCache } from '../../modules/chat/ports/response-cache';
import { RedisProbe } from '../../modules/ops/ports/dependency-probe';
import { ChannelLocks } from '../../modules/payments/ports/channel-locks';
import { ExposureLedger } from '../../modules/payments/ports/exposure-ledger';
import { ReplayStore } from '../../modules/payments/ports/replay-store';
import { SponsorshipLedger } from '../../modules/payments/ports/sponsorship-ledger';
import { RateLimitStore } from '../../modules/rate-limits/ports/rate-limit-store';
import { MemoryExposureLedger } from '../memory/memory-exposure-ledger';
import { MemoryRateLimitStore } from '../memory/memory-rate-limit-store';
import { MemoryRedeliveryStore } from '../memory/memory-redelivery-store';
import { MemoryReplayStore } from '../memory/memory-replay-store';
import { MemorySponsorshipLedger } from '../memory/memory-sponsorship-ledger';
import { RedisConnection } from './redis-connection';
import { RedisExposureLedger } from './redis-exposure-ledger';
import { RedisRateLimitStore } from './redis-rate-limit-store';
import { RedisRedeliveryStore } from './redis-redelivery-store';
import { RedisReplayStore } from './redis-replay-store';
import { RedisResponseCache } from './redis-response-cache';
import { RedisSponsorshipLedger } from './redis-sponsorship-ledger';
import { A2A_KEY_PREFIX, RedisTaskStore } from './redis-task-store';
import { RedisLocks } from './redis-locks';

/** Where the channels' draw locks live in Redis. */
const CHANNEL_KEY_PREFIX = 'gw:channel:';

/** How long the start waits for Redis before serving on the fallbacks. */
const STARTUP_WAIT_MS = 2_000;

/** A port served from the shared client. */
function onRedis<T>(port: abstract new () => T, adapter: (client: Redis) => T): FactoryProvider<T> {
  return { provide: port, useFactory: (redis: RedisConnection) => adapter(redis.client), inject: [RedisConnection] };
}

/**
 * The shared-state ports on Redis (REDIS_URL), over one connection. While Redis fails, each port
 * falls back to this instance's memory, except the cache, which does without (RedisConnection),
 * and the A2A tasks and their locks, which fail (redis-task-store.ts).
 */
@Global()
@Module({})
export class RedisStateModule {
  static forRoot(url: Secret): DynamicModule {
    return {
      module: RedisStateModule,
      providers: [
        {
          provide: RedisConnection,
          useFactory: async (logger: AppLogger) => {
            logger.setContext(RedisConnection.name);
            const connection = new RedisConnection(url, logger);
            await connection.connected(STARTUP_WAIT_MS);
            return connection;
          },
          inject: [AppLogger],
        },
        { provide: RedisProbe, useExisting: RedisConnection },
        onRedis(RateLimitStore, (client) => new RedisRateLimitStore(client, new MemoryRateLimitStore())),
        onRedis(ReplayStore, (client) => new RedisReplayStore(client, new MemoryReplayStore())),
        onRedis(ExposureLedger, (client) => new RedisExposureLedger(client, new MemoryExposureLedger())),
        onRedis(SponsorshipLedger, (client) => new RedisSponsorshipLedger(client, new MemorySponsorshipLedger())),
        onRedis(RedeliveryStore, (client) => new RedisRedeliveryStore(client, new MemoryRedeliveryStore())),
        onRedis(ResponseCache, (client) => new RedisResponseCache(client)),
        onRedis(TaskStore, (client) => new RedisTaskStore(client)),
        onRedis(TaskLocks, (client) => new RedisLocks(client, A2A_KEY_PREFIX)),
        onRedis(ChannelLocks, (client) => new RedisLocks(client, CHANNEL_KEY_PREFIX)),
      ],
      exports: [RedisProbe, RateLimitStore, ReplayStore, ExposureLedger, SponsorshipLedger, RedeliveryStore, ResponseCache, TaskStore, TaskLocks, ChannelLocks],
    };
  }
}
