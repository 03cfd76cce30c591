import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppLogger, RootLogger } from './app-logger';

/** The root logger and the per-class AppLogger, for every module. */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(root: Logger): DynamicModule {
    return {
      module: LoggingModule,
      providers: [{ provide: RootLogger, useValue: new RootLogger(root) }, AppLogger],
      exports: [RootLogger, AppLogger],
    };
  }
}
