import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * A worker's scrape of GET /metrics goes to the primary, which gathers every worker's registry with
 * prom-client's AggregatorRegistry and answers the sum (docs/decisions.md, "Metrics across workers").
 * These are the two ends of that round trip, over the cluster's IPC channel.
 */

const REQUEST = 'gw:metrics-request';
const REPLY = 'gw:metrics-reply';

interface MetricsRequest {
  type: typeof REQUEST;
  id: number;
}

type MetricsReply = { type: typeof REPLY; id: number } & ({ contentType: string; text: string } | { error: string });

/** Prometheus text and the content type to answer it with. */
export interface MetricsText {
  contentType: string;
  text: string;
}

/** prom-client gives the workers 5 s to answer the primary; the worker waits a little longer, so that the primary's own error comes back. */
export const CLUSTER_METRICS_TIMEOUT_MS = 6_000;

/**
 * Enters this worker's registry in prom-client's cluster aggregation and answers the primary's
 * requests for it. The primary asks every worker it has forked: a worker still starting, called
 * without its registry yet, answers with nothing rather than not at all, which would fail every
 * scrape until prom-client's 5 s are up.
 */
export function joinClusterMetrics(registry?: Registry): void {
  AggregatorRegistry.setRegistries(registry ? [registry] : []);
  // The constructor is what installs prom-client's listener for the primary's requests (once per process).
  new AggregatorRegistry();
}

/** The end of the channel a worker has: `process` in a cluster worker. */
export interface WorkerChannel {
  send?: (message: unknown, callback: (error: Error | null) => void) => boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

let nextRequestId = 0;

/** Asks the primary for every worker's metrics, aggregated; rejects when it does not answer within `timeoutMs`. */
export function requestClusterMetrics(channel: WorkerChannel = process, timeoutMs = CLUSTER_METRICS_TIMEOUT_MS): Promise<MetricsText> {
  const id = nextRequestId++;
  return new Promise<MetricsText>((resolve, reject) => {
    const settle = (error: Error | null, metrics?: MetricsText): void => {
      clearTimeout(timer);
      channel.off('message', onMessage);
      if (error) reject(error);
      else resolve(metrics as MetricsText);
    };
    // Concurrent scrapes share the channel: each takes only the reply that carries its id.
    const onMessage = (message: unknown): void => {
      if (!isReply(message) || message.id !== id) return;
      if ('error' in message) settle(new Error(`the primary could not aggregate the workers' metrics: ${message.error}`));
      else settle(null, { contentType: message.contentType, text: message.text });
    };
    const timer = setTimeout(() => settle(new Error(`the primary did not answer within ${timeoutMs} ms`)), timeoutMs);
    channel.on('message', onMessage);
    if (!channel.send) return settle(new Error('no channel to the primary'));
    const request: MetricsRequest = { type: REQUEST, id };
    channel.send(request, (error) => {
      if (error) settle(new Error(`could not ask the primary: ${error.message}`));
    });
  });
}

/** What the primary needs of prom-client's AggregatorRegistry. */
export interface ClusterAggregator {
  clusterMetrics(): Promise<string>;
  readonly contentType: string;
}

/** The primary's cluster: the events of its workers. */
export interface PrimaryCluster {
  on(event: 'message', listener: (worker: Worker, message: unknown) => void): unknown;
  off(event: 'message', listener: (worker: Worker, message: unknown) => void): unknown;
}

/** In the primary: answers each worker's request with every worker's metrics, aggregated. Returns the function that stops answering. */
export function answerMetricsRequests(aggregator: ClusterAggregator = new AggregatorRegistry(), events: PrimaryCluster = cluster): () => void {
  const onMessage = (worker: Worker, message: unknown): void => {
    if (!isRequest(message)) return;
    const reply = (answer: MetricsReply): void => {
      // The worker may have died meanwhile; its scrape died with it.
      if (worker.isConnected()) worker.send(answer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ type: REPLY, id: message.id, contentType: aggregator.contentType, text }),
      (err: unknown) => reply({ type: REPLY, id: message.id, error: err instanceof Error ? err.message : String(err) }),
    );
  };
  events.on('message', onMessage);
  return () => events.off('message', onMessage);
}

function isRequest(message: unknown): message is MetricsRequest {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === REQUEST && typeof (message as { id?: unknown }).id === 'number';
}

function isReply(message: unknown): message is MetricsReply {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === REPLY && typeof (message as { id?: unknown }).id === 'number';
}
