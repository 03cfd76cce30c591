import { Global, Module, type OnApplicationShutdown } from '@nestjs/common';
import { GatewayConfig } from '../../config/gateway-config';
import { LlmProviders } from '../../modules/providers/ports/llm-provider';
import { providerAdapters } from './provider-adapters';
import { UpstreamHttp } from './shared/upstream-http';

/** The provider adapters, one per upstream with a key, behind one client pool that closes at shutdown. */
@Global()
@Module({
  providers: [
    {
      provide: UpstreamHttp,
      useFactory: (config: GatewayConfig) => new UpstreamHttp({ connectMs: config.upstream.connectTimeoutMs, firstByteMs: config.upstream.firstByteTimeoutMs, idleMs: config.upstream.idleTimeoutMs }),
      inject: [GatewayConfig],
    },
    {
      provide: LlmProviders,
      useFactory: (config: GatewayConfig, http: UpstreamHttp): LlmProviders => ({ all: providerAdapters(config, http) }),
      inject: [GatewayConfig, UpstreamHttp],
    },
  ],
  exports: [LlmProviders],
})
export class LlmModule implements OnApplicationShutdown {
  constructor(private readonly http: UpstreamHttp) {}

  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }
}
