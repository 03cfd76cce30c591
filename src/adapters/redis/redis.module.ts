import { Global, Module, type DynamicModule } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Secret } from '../../config/secret';
import { RedisConnection } from './redis-connection';

/** Provides the shared RedisConnection when REDIS_URL is set; without it, nothing (memory adapters apply). */
@Global()
@Module({})
export class RedisModule {
  static forRoot(url: Secret | null): DynamicModule {
    if (!url) return { module: RedisModule };
    return {
      module: RedisModule,
      providers: [
        {
          provide: RedisConnection,
          useFactory: (logger: PinoLogger) => {
            logger.setContext(RedisConnection.name);
            return new RedisConnection(url, logger);
          },
          inject: [PinoLogger],
        },
      ],
      exports: [RedisConnection],
    };
  }
}
