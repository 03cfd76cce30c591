import { Module } from '@nestjs/common';
import { MemoryReplayStore } from '../../adapters/memory/memory-replay-store';
import { RedisConnection } from '../../adapters/redis/redis-connection';
import { RedisReplayStore } from '../../adapters/redis/redis-replay-store';
import { KeypairFeePayers } from '../../adapters/solana/keypair-fee-payers';
import { SolanaPaymentChain } from '../../adapters/solana/solana-payment-chain';
import { GatewayConfig } from '../../config/gateway-config';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { ExactPayments } from './application/exact-payments';
import { PaidRateLimit } from './application/paid-rate-limit';
import { PaymentChallenges } from './application/payment-challenges';
import { PaymentMetrics } from './application/payment-metrics';
import { ReceiptsController } from './http/receipts.controller';
import { FeePayers } from './ports/fee-payers';
import { PaymentChain } from './ports/payment-chain';
import { ReplayStore } from './ports/replay-store';
import { BudgetReservations, UnlimitedBudgets } from './ports/budget-reservations';
import { ReceiptOutbox } from './application/receipt-outbox';
import { SettlementReconciler } from './application/settlement-reconciler';
import { MemoryExposureLedger } from '../../adapters/memory/memory-exposure-ledger';
import { MemorySponsorshipLedger } from '../../adapters/memory/memory-sponsorship-ledger';
import { RedisExposureLedger } from '../../adapters/redis/redis-exposure-ledger';
import { RedisSponsorshipLedger } from '../../adapters/redis/redis-sponsorship-ledger';
import { BlockhashTracker } from './application/blockhash-tracker';
import { FeeSponsorship } from './application/fee-sponsorship';
import { SourceExposure } from './application/source-exposure';
import { ExposureLedger } from './ports/exposure-ledger';
import { SponsorshipLedger } from './ports/sponsorship-ledger';

/** x402 `exact`: challenges, verification, replay protection, settlement, receipts and the paid rate limit. */
@Module({
  imports: [RateLimitsModule],
  controllers: [ReceiptsController],
  providers: [
    PaymentChallenges,
    ExactPayments,
    PaidRateLimit,
    PaymentMetrics,
    { provide: FeePayers, useFactory: (config: GatewayConfig) => new KeypairFeePayers(config.solana.feePayerKeys), inject: [GatewayConfig] },
    { provide: PaymentChain, useFactory: (config: GatewayConfig, feePayers: FeePayers) => new SolanaPaymentChain(config.solana.rpcUrl, feePayers), inject: [GatewayConfig, FeePayers] },
    {
      provide: ReplayStore,
      useFactory: (redis?: RedisConnection) => (redis ? new RedisReplayStore(redis.client, new MemoryReplayStore()) : new MemoryReplayStore()),
      inject: [{ token: RedisConnection, optional: true }],
    },
    {
      provide: ExposureLedger,
      useFactory: (redis?: RedisConnection) => (redis ? new RedisExposureLedger(redis.client, new MemoryExposureLedger()) : new MemoryExposureLedger()),
      inject: [{ token: RedisConnection, optional: true }],
    },
    {
      provide: SponsorshipLedger,
      useFactory: (redis?: RedisConnection) => (redis ? new RedisSponsorshipLedger(redis.client, new MemorySponsorshipLedger()) : new MemorySponsorshipLedger()),
      inject: [{ token: RedisConnection, optional: true }],
    },
    BlockhashTracker,
    SourceExposure,
    FeeSponsorship,
    { provide: BudgetReservations, useClass: UnlimitedBudgets },
    ReceiptOutbox,
    SettlementReconciler,
  ],
  exports: [PaymentChallenges, ExactPayments, PaidRateLimit, FeePayers, FeeSponsorship],
})
export class PaymentsModule {}
