import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import type { StageTiming } from '../core/stage-timing';

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Why the edge refused a request or closed a connection (docs/decisions.md, "The open edge"). */
export type RejectionReason = 'concurrency_limit' | 'body_bytes_in_flight' | 'client_body_bytes' | 'client_connections' | 'proxy_protocol' | 'pipelined_requests' | 'send_timeout';

const KNOWN_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);

/** Requests by route and status, their duration, and requests the edge refused before routing. */
@Injectable()
export class HttpMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly rejections: Counter<'reason'>;
  private readonly overhead: Histogram<'route'>;
  private readonly upstream: Histogram<'provider'>;
  private readonly payment: Histogram<'stage'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'gw_http_requests_total',
      help: 'HTTP requests answered, by method, matched route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'gw_http_request_duration_seconds',
      help: 'Time from the request reaching the edge to its response closing',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
    this.rejections = new Counter({
      name: 'gw_http_rejections_total',
      help: 'Requests and connections the edge refused before a handler, or cut, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.overhead = new Histogram({
      name: 'gw_gateway_overhead_seconds',
      help: "The gateway's own time per request: its duration less upstream and payment time",
      labelNames: ['route'],
      buckets: OVERHEAD_BUCKETS,
      registers: [registry],
    });
    this.upstream = new Histogram({
      name: 'gw_upstream_duration_seconds',
      help: 'Time from calling a provider to its answer ending (a whole stream included), by provider',
      labelNames: ['provider'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
    this.payment = new Histogram({
      name: 'gw_payment_duration_seconds',
      help: 'Time verifying a payment (decode, checks, chain look-ups, claim, receipt) and settling it (broadcast, confirmation)',
      labelNames: ['stage'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  /** `route` is the matched pattern (never the raw path, whose values are unbounded). */
  observe(method: string, route: string, status: number, seconds: number, timing: StageTiming): void {
    const labels = { method: KNOWN_METHODS.has(method) ? method : 'OTHER', route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
    const { upstreamMs, verifyMs, settleMs, provider } = timing;
    this.overhead.observe({ route }, Math.max(0, seconds - (upstreamMs + verifyMs + settleMs) / 1000));
    if (provider !== null) this.upstream.observe({ provider }, upstreamMs / 1000);
    if (verifyMs > 0) this.payment.observe({ stage: 'verify' }, verifyMs / 1000);
    if (settleMs > 0) this.payment.observe({ stage: 'settle' }, settleMs / 1000);
  }

  rejected(reason: RejectionReason): void {
    this.rejections.inc({ reason });
  }
}
