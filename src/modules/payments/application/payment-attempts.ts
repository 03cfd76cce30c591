import { Injectable } from '@nestjs/common';
import { PaidRateLimit } from './paid-rate-limit';

/** Only PaymentAttempts.count can make a CountedAttempt: nothing outside this file can name it. */
const COUNTED: unique symbol = Symbol('countedAttempt');

/**
 * Proof that a payment-bearing request was counted against its client address's attempt window
 * before any work was spent on it (docs/decisions.md, "Limits before the work"). `accept()` takes
 * no payment without one, so no surface (chat, tools, A2A) can skip the limit.
 */
export class CountedAttempt {
  constructor(
    token: typeof COUNTED,
    readonly clientAddress: string,
  ) {
    if (token !== COUNTED) throw new TypeError('a CountedAttempt comes from PaymentAttempts.count');
  }
}

/** The payment-attempt limit per client address, whatever the scheme: a replay or a redelivery counts too; past it, 429. */
@Injectable()
export class PaymentAttempts {
  constructor(private readonly rateLimit: PaidRateLimit) {}

  async count(clientAddress: string): Promise<CountedAttempt> {
    await this.rateLimit.admitAttempt(clientAddress);
    return new CountedAttempt(COUNTED, clientAddress);
  }
}
