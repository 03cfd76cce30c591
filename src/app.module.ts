import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { DestinationStream } from 'pino';
import { LlmModule } from './adapters/llm/llm.module';
import { MemoryStateModule } from './adapters/memory/memory-state.module';
import { MemoryStorageModule } from './adapters/memory/memory-storage.module';
import { SolanaModule } from './adapters/solana/solana.module';
import { ToolsUpstreamsModule } from './adapters/tools/tools-upstreams.module';
import type { GatewayConfig } from './config/gateway-config';
import { ErrorEnvelopeFilter } from './http/error-envelope.filter';
import { HttpEdgeModule } from './http/http-edge.module';
import { CoreModule } from './core/core.module';
import { LoggingModule } from './logging/logging.module';
import { createRootLogger } from './logging/root-logger';
import { ChatModule } from './modules/chat/chat.module';
import { ConsoleModule } from './modules/console/console.module';
import { builtConsoleDir } from './modules/console/http/console-bundle';
import { OpsModule } from './modules/ops/ops.module';
import { OrgsModule } from './modules/orgs/orgs.module';
import type { HostResolver } from './modules/tools/ports/host-resolver';
import { ToolsModule } from './modules/tools/tools.module';
import { A2AModule } from './modules/a2a/a2a.module';
import { DiscoveryModule } from './modules/discovery/discovery.module';

export interface GatewayOptions {
  /** Further modules to mount (the test suites add their own routes this way). */
  imports?: NonNullable<ModuleMetadata['imports']>;
  /** Where logs go instead of stdout. */
  logDestination?: DestinationStream;
  /** A name resolver in place of the system's, for the SSRF checks (tests change its answers). */
  hostResolver?: HostResolver;
  /** The console's built bundle; `dist/console` of the checkout unless given (the console's tests build their own). */
  consoleDir?: string;
}

/**
 * The one place where a technology is chosen for the ports (docs/decisions.md, "Adapters chosen per
 * technology"). Each of these modules is global and provides the ports it implements, so feature
 * modules inject ports without naming an adapter. The PostgreSQL and Redis adapters are loaded only
 * when chosen: TypeORM and ioredis hold about 14 MB of an idle gateway that uses neither
 * (docs/performance.md, "The CPU floor").
 */
function adapterModules(config: GatewayConfig, options: GatewayOptions): NonNullable<ModuleMetadata['imports']> {
  const { storage, redisUrl } = config;
  return [
    storage.kind === 'none' ? MemoryStorageModule : import('./adapters/postgres/postgres-storage.module').then(({ PostgresStorageModule }) => PostgresStorageModule.forRoot(storage)),
    redisUrl ? import('./adapters/redis/redis-state.module').then(({ RedisStateModule }) => RedisStateModule.forRoot(redisUrl)) : MemoryStateModule,
    SolanaModule.forRoot(config),
    LlmModule,
    ToolsUpstreamsModule.forRoot(options.hostResolver),
  ];
}

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig, options: GatewayOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot(createRootLogger(config, options.logDestination)),
        CoreModule.forRoot(config),
        ...adapterModules(config, options),
        HttpEdgeModule,
        OpsModule,
        ChatModule,
        OrgsModule,
        ToolsModule,
        A2AModule,
        DiscoveryModule,
        ConsoleModule.forRoot(options.consoleDir ?? builtConsoleDir()),
        ...(options.imports ?? []),
      ],
      providers: [{ provide: APP_FILTER, useClass: ErrorEnvelopeFilter }],
    };
  }
}
