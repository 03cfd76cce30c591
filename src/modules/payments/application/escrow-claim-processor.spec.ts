import { Registry } from 'prom-client';
import { newClaim } from '../../../../test/contracts/escrow-claims.contract';
import { UnusedPaymentChain } from '../../../../test/support/unused-payment-chain';
import type { GatewayConfig } from '../../../config/gateway-config';
import type { AppLogger } from '../../../logging/app-logger';
import { UnlimitedBudgets } from '../ports/budget-reservations';
import { EscrowChain } from '../ports/escrow-chain';
import { EscrowClaims, type EscrowClaim } from '../ports/escrow-claims';
import { FeePayers } from '../ports/fee-payers';
import type { ChainStatus, PreparedTransaction } from '../ports/payment-chain';
import type { ReceiptStore } from '../ports/receipt-store';
import type { EscrowClaimFees } from './escrow-claim-fees';
import { EscrowClaimProcessor } from './escrow-claim-processor';
import { PaymentMetrics } from './payment-metrics';
import { ReceiptOutbox } from './receipt-outbox';

const logger = { setContext: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as AppLogger;
const LEASE_MS = 2_000;
const CONFIRM_MS = 1_000;
const config = {
  solana: { escrowProgramId: 'Program1111111111111111111111111111111111111' },
  settlement: { leaseTtlMs: LEASE_MS, confirmMs: CONFIRM_MS },
  escrow: { breakerWindowMs: 300_000, breakerResetMs: 60_000, claimRetryBaseMs: 1_000, claimIntervalMs: 1_000 },
} as unknown as GatewayConfig;

class OpenChain extends UnusedPaymentChain {
  override slot(): Promise<bigint> {
    return Promise.resolve(0n);
  }
  override statuses(signatures: readonly string[]): Promise<ChainStatus[]> {
    return Promise.resolve(signatures.map(() => 'absent'));
  }
}

class OpenEscrow extends EscrowChain {
  readonly provider = 'Provider11111111111111111111111111111111111';
  verifyDeposit(): never {
    throw new Error('not used');
  }
  escrowExists(): Promise<boolean> {
    return Promise.resolve(true);
  }
  simulateDeposit(): never {
    throw new Error('not used');
  }
  claimTransaction(): Promise<PreparedTransaction> {
    return Promise.resolve({ signedTransaction: 'AQID', signature: 'claim-1' });
  }
  sendClaim(): never {
    throw new Error('not sent: the attempt is never recorded');
  }
}

class OneFeePayer extends FeePayers {
  advertise(): string {
    return 'FeePayer1111111111111111111111111111111111';
  }
  addresses(): string[] {
    return [this.advertise()];
  }
  owns(): boolean {
    return true;
  }
  sign(): null {
    return null;
  }
  markFailed(): void {}
}

/** One due claim, whose attempt's record never gets an answer from storage (a half-open connection). */
class StalledClaims extends EscrowClaims {
  renewals = 0;
  private leased = false;
  constructor(private readonly claim: EscrowClaim) {
    super();
  }
  lease(_now: Date, holder: string, leaseUntil: Date): Promise<EscrowClaim | null> {
    if (this.leased) return Promise.resolve(null);
    this.leased = true;
    return Promise.resolve({ ...this.claim, status: 'in_progress', leaseHolder: holder, leaseUntil });
  }
  renew(): Promise<boolean> {
    this.renewals += 1;
    return Promise.resolve(true);
  }
  recordAttempt(): Promise<boolean> {
    return new Promise<boolean>(() => undefined);
  }
  open = unused;
  withdraw = unused;
  finalize = unused;
  complete = unused;
  retry = unused;
  fail = unused;
  abandonUnclaimed = unused;
  endedWithPendingReceipt = unused;
  counts = unused;
  findByReceipt = unused;
  bar = unused;
  isBarred = unused;
}

function unused(): never {
  throw new Error('not used');
}

describe('EscrowClaimProcessor', () => {
  afterEach(() => jest.useRealTimers());

  it('stops renewing the lease of a claim whose work has stalled longer than an attempt can take, and goes on with its pass', async () => {
    jest.useFakeTimers();
    const claims = new StalledClaims({
      ...newClaim(),
      id: 'claim-id',
      status: 'pending',
      attempts: 0,
      dueAt: new Date(0),
      leaseUntil: null,
      leaseHolder: null,
      claimSignatures: [],
      claimSignature: null,
      lastError: null,
      createdAt: new Date(0),
    });
    const fees = { record: () => Promise.resolve() } as unknown as EscrowClaimFees;
    const processor = new EscrowClaimProcessor(
      config,
      new OpenChain(),
      new OneFeePayer(),
      new UnlimitedBudgets(),
      fees,
      new ReceiptOutbox(logger),
      new PaymentMetrics(new Registry()),
      logger,
      new OpenEscrow(),
      claims,
      {} as ReceiptStore,
    );
    let passEnded = false;
    const pass = processor.runOnce().then(() => (passEnded = true));

    // While an attempt could still be under way, its lease is renewed (every third of the lease).
    await jest.advanceTimersByTimeAsync(10_000);
    expect(claims.renewals).toBeGreaterThanOrEqual(10_000 / (LEASE_MS / 3) - 1);
    expect(passEnded).toBe(false);

    // Past the longest an attempt can take (its confirmation window and 30 s of RPC calls), it is left to lapse.
    await jest.advanceTimersByTimeAsync(CONFIRM_MS + 30_000);
    await pass;
    expect(passEnded).toBe(true);
    const renewed = claims.renewals;
    await jest.advanceTimersByTimeAsync(60_000);
    expect(claims.renewals).toBe(renewed);
  });
});
