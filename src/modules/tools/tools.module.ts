import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { ServicePrices } from '../payments/ports/service-prices';
import { PaidTools } from './application/paid-tools';
import { ServiceOffers } from './application/service-offers';
import { ServiceProxy } from './application/service-proxy';
import { ServiceRegistry } from './application/service-registry';
import { SsrfGuard } from './application/ssrf-guard';
import { ServicesController } from './http/services.controller';
import { ToolsController } from './http/tools.controller';

/** The paid tools (search, prices), the service registry and the paid proxy to registered services. */
@Module({
  imports: [PaymentsModule],
  controllers: [ToolsController, ServicesController],
  providers: [PaidTools, ServiceRegistry, SsrfGuard, ServiceOffers, ServiceProxy, { provide: ServicePrices, useExisting: ServiceOffers }],
})
export class ToolsModule {}
