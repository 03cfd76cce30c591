import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The one registry of a gateway process, with prom-client's process and Node.js metrics (event-loop
 * lag, GC pauses, heap, handles) under the gateway's own prefix, so every series it exports is
 * gw_<subsystem>_... (README.md, "Metrics").
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gw_' });
  // Across workers prom-client would leave the start time out; the newest worker's keeps the series
  // and marks when a replaced worker's counts left the sums (docs/decisions.md, "Metrics across workers").
  const startTime = registry.getMetricsAsArray().find((metric) => metric.name === 'gw_process_start_time_seconds');
  if (startTime) startTime.aggregator = 'max';
  return registry;
}
