import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { PaymentsModule } from '../payments/payments.module';
import { ProvidersModule } from '../providers/providers.module';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { RoutingModule } from '../routing/routing.module';
import { AnswerCache } from './application/answer-cache';
import { AnswerRedelivery } from './application/answer-redelivery';
import { ChatMetrics } from './application/chat-metrics';
import { ChatPlanner } from './application/chat-planner';
import { CompletionPipeline } from './application/completion-pipeline';
import { FreeServing } from './application/free-serving';
import { FreeTierLimit } from './application/free-tier-limit';
import { PaidAnswerSource } from './application/paid-answer-source';
import { PaidGenerations } from './application/paid-generations';
import { PaidServing } from './application/paid-serving';
import { ChatCompletionsController } from './http/chat-completions.controller';
import { MessagesController } from './http/messages.controller';

/** The completion pipeline (plan, windows, guard, free or paid answer, cache, redelivery) and its codecs and routes: OpenAI's chat and Anthropic's Messages. */
@Module({
  imports: [BillingModule, RoutingModule, ProvidersModule, PaymentsModule, RateLimitsModule],
  controllers: [ChatCompletionsController, MessagesController],
  providers: [ChatPlanner, CompletionPipeline, FreeServing, PaidServing, PaidAnswerSource, AnswerCache, AnswerRedelivery, ChatMetrics, FreeTierLimit, PaidGenerations],
  exports: [ChatPlanner],
})
export class ChatModule {}
