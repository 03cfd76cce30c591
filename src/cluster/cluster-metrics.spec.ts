import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { AggregatorRegistry, Counter, type Registry } from 'prom-client';
import { createMetricsRegistry } from '../core/metrics-registry';
import { PaymentMetrics } from '../modules/payments/application/payment-metrics';
import { answerMetricsRequests, requestClusterMetrics, type WorkerChannel } from './cluster-metrics';

/** A worker's end of the channel: what it sends is recorded, what the primary answers is emitted. */
class FakeChannel extends EventEmitter implements WorkerChannel {
  readonly sent: Array<{ type: string; id: number }> = [];
  send = (message: unknown, callback: (error: Error | null) => void): boolean => {
    this.sent.push(message as { type: string; id: number });
    callback(null);
    return true;
  };
}

describe('requestClusterMetrics', () => {
  it('gives each concurrent scrape the reply that carries its id, whatever the order, and stops listening', async () => {
    const channel = new FakeChannel();
    const first = requestClusterMetrics(channel, 1_000);
    const second = requestClusterMetrics(channel, 1_000);
    const [a, b] = channel.sent;
    expect(a.type).toBe('gw:metrics-request');
    expect(b.id).not.toBe(a.id);
    channel.emit('message', { type: 'prom-client:getMetricsReq', requestId: a.id });
    channel.emit('message', { type: 'gw:metrics-reply', id: b.id, contentType: 'text/plain', text: 'second' });
    channel.emit('message', { type: 'gw:metrics-reply', id: a.id, contentType: 'text/plain', text: 'first' });
    await expect(first).resolves.toEqual({ contentType: 'text/plain', text: 'first' });
    await expect(second).resolves.toEqual({ contentType: 'text/plain', text: 'second' });
    expect(channel.listenerCount('message')).toBe(0);
  });

  it("rejects with the primary's error, and when the primary does not answer in time", async () => {
    const channel = new FakeChannel();
    const failed = requestClusterMetrics(channel, 1_000);
    channel.emit('message', { type: 'gw:metrics-reply', id: channel.sent[0].id, error: 'Operation timed out.' });
    await expect(failed).rejects.toThrow("the primary could not aggregate the workers' metrics: Operation timed out.");
    await expect(requestClusterMetrics(channel, 20)).rejects.toThrow('the primary did not answer within 20 ms');
    expect(channel.listenerCount('message')).toBe(0);
  });
});

describe('answerMetricsRequests', () => {
  it("answers a worker's request with the aggregate, or the aggregator's error, and stops when told", async () => {
    const primary = new EventEmitter();
    const replies: unknown[] = [];
    const worker = { isConnected: () => true, send: (message: unknown) => replies.push(message) } as unknown as Worker;
    let fail = false;
    const aggregator = { contentType: 'text/plain; version=0.0.4', clusterMetrics: () => (fail ? Promise.reject(new Error('Operation timed out.')) : Promise.resolve('all')) };
    const stop = answerMetricsRequests(aggregator, primary);

    primary.emit('message', worker, { type: 'gw:metrics-request', id: 7 });
    primary.emit('message', worker, { type: 'something else', id: 8 });
    fail = true;
    primary.emit('message', worker, { type: 'gw:metrics-request', id: 9 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(replies).toEqual([
      { type: 'gw:metrics-reply', id: 7, contentType: 'text/plain; version=0.0.4', text: 'all' },
      { type: 'gw:metrics-reply', id: 9, error: 'Operation timed out.' },
    ]);
    stop();
    expect(primary.listenerCount('message')).toBe(0);
  });
});

describe('metrics aggregated across workers', () => {
  it("sums counters and the process gauges, takes the largest of the gateway's own gauges, keeps the start time", async () => {
    const worker = (requests: number, pending: number): Registry => {
      const registry = createMetricsRegistry();
      new Counter({ name: 'gw_http_requests_total', help: 'h', registers: [registry] }).inc(requests);
      new PaymentMetrics(registry).pending(pending, 1);
      return registry;
    };
    const registries = [worker(3, 5), worker(4, 5)];
    const aggregate = AggregatorRegistry.aggregate(await Promise.all(registries.map((registry) => registry.getMetricsAsJSON())));
    const value = async (name: string): Promise<number | undefined> => (await aggregate.getSingleMetric(name)?.get())?.values[0]?.value;
    expect(await value('gw_http_requests_total')).toBe(7);
    expect(await value('gw_settlement_pending_receipts')).toBe(5);
    expect(aggregate.getSingleMetric('gw_process_start_time_seconds')).toBeDefined();
    const aggregator = (name: string): string | undefined => registries[0].getMetricsAsArray().find((metric) => metric.name === name)?.aggregator;
    expect(aggregator('gw_process_resident_memory_bytes')).toBe('sum');
    expect(aggregator('gw_nodejs_eventloop_lag_mean_seconds')).toBe('average');
  });
});
