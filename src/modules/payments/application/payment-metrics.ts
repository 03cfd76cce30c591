import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';

/** What operators watch for payments: accepted and refused, settled and failed, and what is still pending. */
@Injectable()
export class PaymentMetrics {
  private readonly payments: Counter<'outcome'>;
  private readonly settlements: Counter<'result'>;
  private readonly pendingReceipts: Gauge;
  private readonly pendingAge: Gauge;

  constructor(registry: Registry) {
    this.payments = new Counter({ name: 'gw_payments_total', help: 'Payment headers by outcome (accepted, or why refused)', labelNames: ['outcome'], registers: [registry] });
    this.settlements = new Counter({
      name: 'gw_settlements_total',
      help: 'Settlements of accepted payments: settled, not_charged (nothing delivered), or the failure',
      labelNames: ['result'],
      registers: [registry],
    });
    this.pendingReceipts = new Gauge({ name: 'gw_settlement_pending_receipts', help: 'Receipts still pending at the last reconciler pass (at most one batch)', registers: [registry] });
    this.pendingAge = new Gauge({ name: 'gw_settlement_pending_age_seconds', help: 'Age of the oldest pending receipt at the last reconciler pass; 0 when none', registers: [registry] });
  }

  pending(count: number, oldestAgeSecs: number): void {
    this.pendingReceipts.set(count);
    this.pendingAge.set(oldestAgeSecs);
  }

  payment(outcome: string): void {
    this.payments.inc({ outcome });
  }

  settlement(result: string): void {
    this.settlements.inc({ result });
  }
}
