import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';

/** Counters operators watch for payments: accepted and refused, settled and failed. */
@Injectable()
export class PaymentMetrics {
  private readonly payments: Counter<'outcome'>;
  private readonly settlements: Counter<'result'>;

  constructor(registry: Registry) {
    this.payments = new Counter({ name: 'gw_payments_total', help: 'Payment headers by outcome (accepted, or why refused)', labelNames: ['outcome'], registers: [registry] });
    this.settlements = new Counter({
      name: 'gw_settlements_total',
      help: 'Settlements of accepted payments: settled, not_charged (nothing delivered), or the failure',
      labelNames: ['result'],
      registers: [registry],
    });
  }

  payment(outcome: string): void {
    this.payments.inc({ outcome });
  }

  settlement(result: string): void {
    this.settlements.inc({ result });
  }
}
