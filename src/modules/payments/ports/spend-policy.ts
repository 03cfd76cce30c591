import type { GatewayError } from '../../../errors/gateway-error';

/**
 * Whether a payer may spend an amount, checked after the payment verified and before the
 * provider is called. Enterprise budgets plug in here; the default allows everything.
 */
export abstract class SpendPolicy {
  /** Null when allowed, else the error to answer with (spec 4.9: 400 `budget exceeded for wallet ...`). */
  abstract authorize(payerWallet: string, amountAtomic: bigint): Promise<GatewayError | null>;
}

export class UnlimitedSpend extends SpendPolicy {
  authorize(): Promise<GatewayError | null> {
    return Promise.resolve(null);
  }
}
