import { Global, Module, type DynamicModule } from '@nestjs/common';
import { Registry } from 'prom-client';
import { createMetricsRegistry } from './metrics-registry';
import { GatewayConfig } from '../config/gateway-config';
import { BackgroundTasks } from './background-tasks';
import { InFlightRequests } from './in-flight-requests';

/** What every module may use: the configuration, the one metrics registry, background tasks, in-flight tracking. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: GatewayConfig, useValue: config },
        {
          provide: Registry,
          useFactory: createMetricsRegistry,
        },
        BackgroundTasks,
        InFlightRequests,
      ],
      exports: [GatewayConfig, Registry, BackgroundTasks, InFlightRequests],
    };
  }
}
