import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import type { LimiterName } from '../domain/limiter-name';

/** Requests refused by a rate-limit window, by which limiter refused them (never by client). */
@Injectable()
export class RateLimitMetrics {
  private readonly rejections: Counter<'limiter'>;

  constructor(registry: Registry) {
    this.rejections = new Counter({
      name: 'gw_rate_limit_rejections_total',
      help: 'Requests refused with 429 by a rate-limit window, by limiter: free:ip, free:global, paid:ip, paid:wallet, paid:attempt, a2a:get, admin:failures, route:<name>',
      labelNames: ['limiter'],
      registers: [registry],
    });
  }

  rejected(limiter: LimiterName): void {
    this.rejections.inc({ limiter });
  }
}
