import { Global, Module, type DynamicModule } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
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
          useFactory: () => {
            const registry = new Registry();
            // prom-client's process and Node.js metrics (event-loop lag, GC pauses, heap, handles) under the
            // gateway's own prefix, so every series the gateway exports is gw_<subsystem>_... (README.md, "Metrics").
            collectDefaultMetrics({ register: registry, prefix: 'gw_' });
            return registry;
          },
        },
        BackgroundTasks,
        InFlightRequests,
      ],
      exports: [GatewayConfig, Registry, BackgroundTasks, InFlightRequests],
    };
  }
}
