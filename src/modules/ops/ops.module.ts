import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { Database } from '../../adapters/postgres/database';
import { RedisConnection } from '../../adapters/redis/redis-connection';
import { SolanaRpcProbe } from '../../adapters/solana/solana-rpc-probe';
import { GatewayConfig } from '../../config/gateway-config';
import { PaymentsModule } from '../payments/payments.module';
import { ProvidersModule } from '../providers/providers.module';
import { HealthService, PROBE_TIMEOUT_MS } from './application/health.service';
import { HealthController } from './http/health.controller';
import { MetricsController } from './http/metrics.controller';
import { HealthProbes } from './ports/dependency-probe';

/** Health, readiness and metrics for operators. */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), ProvidersModule, PaymentsModule],
  controllers: [HealthController, MetricsController],
  providers: [
    HealthService,
    {
      provide: HealthProbes,
      useFactory: (config: GatewayConfig, database?: Database, redis?: RedisConnection): HealthProbes => ({
        database: database ?? null,
        redis: redis ?? null,
        solanaRpc: new SolanaRpcProbe(config.solana.rpcUrl, PROBE_TIMEOUT_MS),
      }),
      inject: [GatewayConfig, { token: Database, optional: true }, { token: RedisConnection, optional: true }],
    },
  ],
})
export class OpsModule {}
