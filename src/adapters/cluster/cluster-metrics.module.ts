import { Global, Module } from '@nestjs/common';
import { ClusterMetrics } from '../../modules/ops/ports/cluster-metrics';
import { IpcClusterMetrics } from './ipc-cluster-metrics';

/** Mounted by a cluster worker only (src/main.ts): GET /metrics then answers for all the workers. */
@Global()
@Module({
  providers: [{ provide: ClusterMetrics, useClass: IpcClusterMetrics }],
  exports: [ClusterMetrics],
})
export class ClusterMetricsModule {}
