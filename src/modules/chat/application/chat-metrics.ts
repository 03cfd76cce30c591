import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';

/** Response cache look-ups by result, for the hit ratio; requests that may not be cached look nothing up and are not counted. */
@Injectable()
export class ChatMetrics {
  private readonly lookups: Counter<'result'>;

  constructor(registry: Registry) {
    this.lookups = new Counter({
      name: 'gw_cache_lookups_total',
      help: 'Response cache look-ups for chat completions, by result: hit or miss',
      labelNames: ['result'],
      registers: [registry],
    });
  }

  cacheLookup(result: 'hit' | 'miss'): void {
    this.lookups.inc({ result });
  }
}
