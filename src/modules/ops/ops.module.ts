import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { PaymentsModule } from '../payments/payments.module';
import { ProvidersModule } from '../providers/providers.module';
import { DependencyIndicators } from './application/dependency-indicators';
import { HealthService } from './application/health.service';
import { HealthController } from './http/health.controller';
import { MetricsController } from './http/metrics.controller';
import { ChainRpcProbe, DatabaseProbe, HealthProbes, RedisProbe } from './ports/dependency-probe';

/** Health, readiness and metrics for operators. */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), ProvidersModule, PaymentsModule],
  controllers: [HealthController, MetricsController],
  providers: [
    HealthService,
    DependencyIndicators,
    {
      provide: HealthProbes,
      useFactory: (solanaRpc: ChainRpcProbe, database?: DatabaseProbe, redis?: RedisProbe): HealthProbes => ({
        database: database ?? null,
        redis: redis ?? null,
        solanaRpc,
      }),
      inject: [ChainRpcProbe, { token: DatabaseProbe, optional: true }, { token: RedisProbe, optional: true }],
    },
  ],
})
export class OpsModule {}
