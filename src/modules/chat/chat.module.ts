import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { ProvidersModule } from '../providers/providers.module';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { RoutingModule } from '../routing/routing.module';
import { ChatCompletions } from './application/chat-completions';
import { ChatMetrics } from './application/chat-metrics';
import { ChatPlanner } from './application/chat-planner';
import { FreeTierLimit } from './application/free-tier-limit';
import { PaidGenerations } from './application/paid-generations';
import { ChatCompletionsController } from './http/chat-completions.controller';

/** The chat completions pipeline: plan, guard, free tier, cache, payment, upstream. */
@Module({
  imports: [RoutingModule, ProvidersModule, PaymentsModule, RateLimitsModule],
  controllers: [ChatCompletionsController],
  providers: [ChatPlanner, ChatCompletions, ChatMetrics, FreeTierLimit, PaidGenerations],
  exports: [ChatPlanner],
})
export class ChatModule {}
