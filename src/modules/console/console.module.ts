import { Module, type DynamicModule } from '@nestjs/common';
import { ConsoleBundle } from './http/console-bundle';
import { ConsoleController } from './http/console.controller';

/** GET /console: the web console for enterprise teams and operators, served from its built bundle in `dir`. */
@Module({})
export class ConsoleModule {
  static forRoot(dir: string): DynamicModule {
    return { module: ConsoleModule, controllers: [ConsoleController], providers: [{ provide: ConsoleBundle, useValue: new ConsoleBundle(dir) }] };
  }
}
