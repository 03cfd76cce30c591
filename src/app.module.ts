import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { DestinationStream } from 'pino';
import { RedisModule } from './adapters/redis/redis.module';
import { StorageModule } from './adapters/storage.module';
import type { GatewayConfig } from './config/gateway-config';
import { BodyLimits, ROUTE_BODY_LIMITS } from './http/body-limits';
import { ErrorEnvelopeFilter } from './http/error-envelope.filter';
import { HttpEdgeModule } from './http/http-edge.module';
import { CoreModule } from './lifecycle/core.module';
import { LoggingModule } from './logging/logging.module';
import { createRootLogger } from './logging/root-logger';
import { ChatModule } from './modules/chat/chat.module';
import { OpsModule } from './modules/ops/ops.module';

export interface GatewayOptions {
  /** Further modules to mount (the test suites add their own routes this way). */
  imports?: NonNullable<ModuleMetadata['imports']>;
  /** Body limits by path, over the spec's defaults. */
  bodyLimits?: Readonly<Record<string, number>>;
  /** Where logs go instead of stdout. */
  logDestination?: DestinationStream;
}

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig, options: GatewayOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot(createRootLogger(config, options.logDestination)),
        CoreModule.forRoot(config),
        StorageModule.forRoot(config.storage),
        RedisModule.forRoot(config.redisUrl),
        HttpEdgeModule.forRoot(new BodyLimits({ ...ROUTE_BODY_LIMITS, ...options.bodyLimits })),
        OpsModule,
        ChatModule,
        ...(options.imports ?? []),
      ],
      providers: [{ provide: APP_FILTER, useClass: ErrorEnvelopeFilter }],
    };
  }
}
