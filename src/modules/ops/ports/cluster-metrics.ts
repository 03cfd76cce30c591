/** Prometheus text and the content type to answer it with. */
export interface MetricsExposition {
  contentType: string;
  text: string;
}

/**
 * The metrics of every worker of the cluster, aggregated. Provided only in a cluster worker
 * (GW_WORKERS above 1): a single process answers GET /metrics from its own registry.
 */
export abstract class ClusterMetrics {
  /** Rejects when the workers' metrics cannot be gathered in time. */
  abstract collect(): Promise<MetricsExposition>;
}
