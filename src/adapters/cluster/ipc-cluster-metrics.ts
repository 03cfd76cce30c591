import { Injectable } from '@nestjs/common';
import { Registry } from 'prom-client';
import { joinClusterMetrics, requestClusterMetrics } from '../../cluster/cluster-metrics';
import { ClusterMetrics, type MetricsExposition } from '../../modules/ops/ports/cluster-metrics';

/** Asks the primary over the cluster's IPC channel, which gathers every worker's registry, this one's included. */
@Injectable()
export class IpcClusterMetrics extends ClusterMetrics {
  constructor(registry: Registry) {
    super();
    joinClusterMetrics(registry);
  }

  private inFlight?: Promise<MetricsExposition>;

  /** Scrapes that arrive while one is out share its answer: each would ask every worker again for the same figures. */
  collect(): Promise<MetricsExposition> {
    this.inFlight ??= requestClusterMetrics().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }
}
