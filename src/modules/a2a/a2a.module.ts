import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { ChatModule } from '../chat/chat.module';
import { PaymentsModule } from '../payments/payments.module';
import { ProvidersModule } from '../providers/providers.module';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { A2ATasks } from './application/a2a-tasks';
import { A2AController } from './http/a2a.controller';
import { AgentCardController } from './http/agent-card.controller';

/** A2A 0.3.0 over JSON-RPC (spec 2.13, 3.1, 4.8): the agent card and the paid task flow. */
@Module({
  imports: [BillingModule, ChatModule, ProvidersModule, PaymentsModule, RateLimitsModule],
  controllers: [A2AController, AgentCardController],
  providers: [A2ATasks],
})
export class A2AModule {}
