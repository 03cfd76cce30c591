import { Module } from '@nestjs/common';
import { MemoryResponseCache } from '../../adapters/memory/memory-response-cache';
import { RedisConnection } from '../../adapters/redis/redis-connection';
import { RedisResponseCache } from '../../adapters/redis/redis-response-cache';
import { MemoryRedeliveryStore } from '../../adapters/memory/memory-redelivery-store';
import { RedisRedeliveryStore } from '../../adapters/redis/redis-redelivery-store';
import { PaymentsModule } from '../payments/payments.module';
import { ProvidersModule } from '../providers/providers.module';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { RoutingModule } from '../routing/routing.module';
import { ChatCompletions } from './application/chat-completions';
import { ChatPlanner } from './application/chat-planner';
import { FreeTierLimit } from './application/free-tier-limit';
import { PaidGenerations } from './application/paid-generations';
import { RedeliveryStore } from './ports/redelivery-store';
import { ChatCompletionsController } from './http/chat-completions.controller';
import { ResponseCache } from './ports/response-cache';

/** The chat completions pipeline: plan, guard, free tier, cache, payment, upstream. */
@Module({
  imports: [RoutingModule, ProvidersModule, PaymentsModule, RateLimitsModule],
  controllers: [ChatCompletionsController],
  providers: [
    ChatPlanner,
    ChatCompletions,
    FreeTierLimit,
    PaidGenerations,
    {
      provide: RedeliveryStore,
      useFactory: (redis?: RedisConnection) => (redis ? new RedisRedeliveryStore(redis.client, new MemoryRedeliveryStore()) : new MemoryRedeliveryStore()),
      inject: [{ token: RedisConnection, optional: true }],
    },
    {
      provide: ResponseCache,
      useFactory: (redis?: RedisConnection) => (redis ? new RedisResponseCache(redis.client) : new MemoryResponseCache()),
      inject: [{ token: RedisConnection, optional: true }],
    },
  ],
})
export class ChatModule {}
