import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { ToolsModule } from '../tools/tools.module';
import { OpenApiDocument } from '../../http/openapi/openapi-document';
import { OpenApiController } from './http/openapi.controller';
import { X402DiscoveryController } from './http/x402-discovery.controller';

/** The discovery documents (spec 4.10): x402 discovery of every paid resource, and the OpenAPI description. */
@Module({
  imports: [PaymentsModule, ToolsModule],
  controllers: [X402DiscoveryController, OpenApiController],
  providers: [OpenApiDocument],
})
export class DiscoveryModule {}
