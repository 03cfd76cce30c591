import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { ToolsModule } from '../tools/tools.module';
import { X402DiscoveryController } from './http/x402-discovery.controller';

/** x402 discovery of every paid resource (spec 4.10). */
@Module({
  imports: [PaymentsModule, ToolsModule],
  controllers: [X402DiscoveryController],
})
export class DiscoveryModule {}
