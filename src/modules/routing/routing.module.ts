import { Module } from '@nestjs/common';
import { ModelRouter } from './application/model-router';
import { ModelsController } from './http/models.controller';

/** The catalog, model resolution and the smart router; GET /v1/models and GET /pricing. */
@Module({
  controllers: [ModelsController],
  providers: [ModelRouter],
  exports: [ModelRouter],
})
export class RoutingModule {}
