import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { providerAdapters } from '../../adapters/llm/provider-adapters';
import { UpstreamHttp } from '../../adapters/llm/upstream-http';
import { GatewayConfig } from '../../config/gateway-config';
import { ProviderRegistry } from './application/provider-registry';
import { UpstreamDispatcher } from './application/upstream-dispatcher';

/** The six upstreams behind one client pool, their circuit breakers and the failure policy. */
@Module({
  providers: [
    {
      provide: UpstreamHttp,
      useFactory: (config: GatewayConfig) =>
        new UpstreamHttp({ connectMs: config.upstream.connectTimeoutMs, firstByteMs: config.upstream.firstByteTimeoutMs, idleMs: config.upstream.idleTimeoutMs }),
      inject: [GatewayConfig],
    },
    {
      provide: ProviderRegistry,
      useFactory: (config: GatewayConfig, http: UpstreamHttp) => new ProviderRegistry(providerAdapters(config, http), config.upstream.breaker),
      inject: [GatewayConfig, UpstreamHttp],
    },
    UpstreamDispatcher,
  ],
  exports: [UpstreamDispatcher, ProviderRegistry],
})
export class ProvidersModule implements OnApplicationShutdown {
  constructor(private readonly http: UpstreamHttp) {}

  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }
}
