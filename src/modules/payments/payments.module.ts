import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { RouteLimitsModule } from '../rate-limits/http/route-limits.module';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { ExactPayments } from './application/exact-payments';
import { PaymentAcceptance } from './application/payment-acceptance';
import { PaymentAdmission } from './application/payment-admission';
import { PaymentOffers } from './application/payment-offers';
import { PaymentAttempts } from './application/payment-attempts';
import { PaidRateLimit } from './application/paid-rate-limit';
import { PaymentChallenges } from './application/payment-challenges';
import { PaymentMetrics } from './application/payment-metrics';
import { ReceiptsController } from './http/receipts.controller';
import { EscrowController } from './http/escrow.controller';
import { ReceiptOutbox } from './application/receipt-outbox';
import { SettlementReconciler } from './application/settlement-reconciler';
import { BlockhashTracker } from './application/blockhash-tracker';
import { FeeSponsorship } from './application/fee-sponsorship';
import { SourceExposure } from './application/source-exposure';
import { PrepaidPayments } from './application/prepaid-payments';
import { EscrowDeposits } from './application/escrow-deposits';
import { EscrowClaimProcessor } from './application/escrow-claim-processor';
import { EscrowClaimFees } from './application/escrow-claim-fees';
import { ChannelAvailability } from './application/channel-availability';
import { ChannelCloses } from './application/channel-closes';
import { ChannelDraws } from './application/channel-draws';
import { ChannelOpenings } from './application/channel-openings';
import { ChannelWorker } from './application/channel-worker';
import { ChannelsController } from './http/channels.controller';

/** x402 `exact`, `escrow` and `channel`: challenges, verification, replay protection, settlement, receipts, channels and the paid rate limit. */
@Module({
  imports: [BillingModule, RateLimitsModule, RouteLimitsModule],
  controllers: [ReceiptsController, EscrowController, ChannelsController],
  providers: [
    PaymentChallenges,
    ExactPayments,
    PaymentAttempts,
    PaymentAcceptance,
    PaymentAdmission,
    PaymentOffers,
    PaidRateLimit,
    PaymentMetrics,
    BlockhashTracker,
    SourceExposure,
    FeeSponsorship,
    ReceiptOutbox,
    SettlementReconciler,
    PrepaidPayments,
    EscrowDeposits,
    EscrowClaimFees,
    EscrowClaimProcessor,
    ChannelAvailability,
    ChannelDraws,
    ChannelOpenings,
    ChannelCloses,
    ChannelWorker,
  ],
  exports: [
    ChannelAvailability,
    PaymentChallenges,
    PaymentAcceptance,
    PaymentAdmission,
    PaymentOffers,
    PaymentAttempts,
    PaidRateLimit,
    FeeSponsorship,
    PrepaidPayments,
    EscrowDeposits,
    EscrowClaimProcessor,
  ],
})
export class PaymentsModule {}
