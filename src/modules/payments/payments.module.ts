import { Module } from '@nestjs/common';
import { KeypairFeePayers } from '../../adapters/solana/keypair-fee-payers';
import { GatewayConfig } from '../../config/gateway-config';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { PaymentChallenges } from './application/payment-challenges';
import { ReceiptsController } from './http/receipts.controller';
import { FeePayers } from './ports/fee-payers';

/** x402: challenges now; verification, replay protection, settlement and receipts with the payments issue. */
@Module({
  imports: [RateLimitsModule],
  controllers: [ReceiptsController],
  providers: [
    PaymentChallenges,
    { provide: FeePayers, useFactory: (config: GatewayConfig) => new KeypairFeePayers(config.solana.feePayerKeys), inject: [GatewayConfig] },
  ],
  exports: [PaymentChallenges, FeePayers],
})
export class PaymentsModule {}
