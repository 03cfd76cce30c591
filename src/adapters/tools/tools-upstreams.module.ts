import { Global, Module, type DynamicModule } from '@nestjs/common';
import { GatewayConfig } from '../../config/gateway-config';
import { HostResolver } from '../../modules/tools/ports/host-resolver';
import { ServiceCaller } from '../../modules/tools/ports/service-caller';
import { TokenPrices } from '../../modules/tools/ports/token-prices';
import { WebSearch } from '../../modules/tools/ports/web-search';
import { DnsHostResolver } from './dns-host-resolver';
import { JupiterTokenPrices } from './jupiter-token-prices';
import { PinnedHttpsServiceCaller } from './pinned-https-service-caller';
import { TavilyWebSearch } from './tavily-web-search';

/**
 * The tools' upstreams over HTTP: Tavily-format search, Jupiter-format prices, registered services
 * over pinned https, and the system resolver for the SSRF checks (`resolver` replaces it: the
 * SSRF tests change its answers between registration and proxy time).
 */
@Global()
@Module({})
export class ToolsUpstreamsModule {
  static forRoot(resolver?: HostResolver): DynamicModule {
    return {
      module: ToolsUpstreamsModule,
      providers: [
        {
          provide: WebSearch,
          useFactory: ({ tools }: GatewayConfig) => new TavilyWebSearch({ baseUrl: tools.searchBaseUrl, apiKey: tools.searchApiKey, timeoutMs: tools.timeoutMs }),
          inject: [GatewayConfig],
        },
        { provide: TokenPrices, useFactory: ({ tools }: GatewayConfig) => new JupiterTokenPrices({ baseUrl: tools.priceBaseUrl, timeoutMs: tools.timeoutMs }), inject: [GatewayConfig] },
        { provide: ServiceCaller, useFactory: ({ tools }: GatewayConfig) => new PinnedHttpsServiceCaller({ timeoutMs: tools.timeoutMs, extraCaPem: tools.extraCaPem }), inject: [GatewayConfig] },
        { provide: HostResolver, useValue: resolver ?? new DnsHostResolver() },
      ],
      exports: [WebSearch, TokenPrices, ServiceCaller, HostResolver],
    };
  }
}
