import { Injectable } from '@nestjs/common';
import { UnpaidBudget } from '../../rate-limits/application/unpaid-budget';
import { PaidRateLimit } from './paid-rate-limit';
import { PaymentAttempts, type CountedAttempt } from './payment-attempts';

/**
 * What every paid surface (chat, the paid tools and proxy, A2A) counts before any work a request
 * would cost (spec 8; docs/decisions.md, "Limits before the work"): a request without a payment in
 * the client's paid bucket (it is a quote), one with a payment as a payment attempt, which
 * `PaymentAcceptance` needs; then its body in the client's unpaid budget, given back once its
 * payment verifies.
 */
@Injectable()
export class PaymentAdmission {
  constructor(
    private readonly attempts: PaymentAttempts,
    private readonly rateLimit: PaidRateLimit,
    private readonly unpaid: UnpaidBudget,
  ) {}

  /** The counted attempt when the request carries a payment; null when it is a quote. */
  async admit(payment: string | undefined, clientAddress: string, bodyBytes: number): Promise<CountedAttempt | null> {
    const attempt = payment !== undefined ? await this.attempts.count(clientAddress) : null;
    if (attempt === null) await this.rateLimit.admitClient(clientAddress);
    await this.unpaid.charge(clientAddress, bodyBytes);
    return attempt;
  }

  /** A payment-bearing request whose windows were taken otherwise (a free name that planned a price): its attempt, counted now. */
  count(clientAddress: string): Promise<CountedAttempt> {
    return this.attempts.count(clientAddress);
  }

  /** The request's payment verified: its body was paid work after all. */
  paid(clientAddress: string, bodyBytes: number): Promise<void> {
    return this.unpaid.refund(clientAddress, bodyBytes);
  }
}
