import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const KNOWN_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);

/** Requests by route and status, their duration, and requests the edge refused before routing. */
@Injectable()
export class HttpMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly rejections: Counter<'reason'>;

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
      help: 'Requests refused by the edge before reaching a handler, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
  }

  /** `route` is the matched pattern (never the raw path, whose values are unbounded). */
  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method: KNOWN_METHODS.has(method) ? method : 'OTHER', route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }

  rejected(reason: 'concurrency_limit'): void {
    this.rejections.inc({ reason });
  }
}
