import { Module } from '@nestjs/common';
import { GatewayConfig } from '../../config/gateway-config';
import { ProviderMetrics } from './application/provider-metrics';
import { ProviderRegistry } from './application/provider-registry';
import { UpstreamDispatcher } from './application/upstream-dispatcher';
import { LlmProviders } from './ports/llm-provider';

/** The configured upstreams, their circuit breakers and the failure policy. */
@Module({
  providers: [
    {
      provide: ProviderRegistry,
      useFactory: (config: GatewayConfig, providers: LlmProviders) => new ProviderRegistry(providers.all, config.upstream.breaker),
      inject: [GatewayConfig, LlmProviders],
    },
    ProviderMetrics,
    UpstreamDispatcher,
  ],
  exports: [UpstreamDispatcher, ProviderRegistry],
})
export class ProvidersModule {}
