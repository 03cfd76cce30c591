import { Global, Module, type DynamicModule } from '@nestjs/common';
import { AppLogger } from '../../logging/app-logger';
import type { Secret } from '../../config/secret';
import { RedisConnection } from './redis-connection';

/** How long the start waits for Redis before serving on the fallbacks. */
const STARTUP_WAIT_MS = 2_000;

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
          useFactory: async (logger: AppLogger) => {
            logger.setContext(RedisConnection.name);
            const connection = new RedisConnection(url, logger);
            await connection.connected(STARTUP_WAIT_MS);
            return connection;
          },
          inject: [AppLogger],
        },
      ],
      exports: [RedisConnection],
    };
  }
}
