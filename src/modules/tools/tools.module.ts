import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { RouteLimitsModule } from '../rate-limits/http/route-limits.module';
import { PaidServices } from '../payments/ports/paid-services';
import { PaidTools } from './application/paid-tools';
import { ServiceOffers } from './application/service-offers';
import { ServiceProxy } from './application/service-proxy';
import { ServiceRegistry } from './application/service-registry';
import { SsrfGuard } from './application/ssrf-guard';
import { ServicesController } from './http/services.controller';
import { ToolsController } from './http/tools.controller';

/** The paid tools (search, prices), the service registry and the paid proxy to registered services. */
@Module({
  imports: [PaymentsModule, RouteLimitsModule],
  controllers: [ToolsController, ServicesController],
  providers: [PaidTools, ServiceRegistry, SsrfGuard, ServiceOffers, ServiceProxy, { provide: PaidServices, useExisting: ServiceOffers }],
  exports: [ServiceRegistry, ServiceOffers],
})
export class ToolsModule {}
