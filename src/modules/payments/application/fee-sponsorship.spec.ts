import { Registry } from 'prom-client';
import { MemorySponsorshipLedger } from '../../../adapters/memory/memory-sponsorship-ledger';
import type { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { ERROR_STATUS } from '../../../http/error-response';
import type { AppLogger } from '../../../logging/app-logger';
import type { VerifiedTransfer } from '../domain/exact-payment';
import { FeePayers } from '../ports/fee-payers';
import type { PaymentChain } from '../ports/payment-chain';
import { FeeSponsorship } from './fee-sponsorship';
import { PaymentMetrics } from './payment-metrics';

const logger = { setContext: () => undefined, info: () => undefined, warn: () => undefined, debug: () => undefined } as unknown as AppLogger;
const HOUR = 3_600_000;
const config = {
  sponsorship: { maxPriorityLamports: 10_000n, lamportsPerWindow: 50_000n, walletLamportsPerWindow: 25_000n, minQuoteAtomic: 1_000n, windowMs: HOUR },
} as GatewayConfig;
const FEE_PAYER = 'FeePayer1111111111111111111111111111111111';

class OneFeePayer extends FeePayers {
  advertise(): string {
    return FEE_PAYER;
  }
  addresses(): readonly string[] {
    return [FEE_PAYER];
  }
  owns(address: string): boolean {
    return address === FEE_PAYER;
  }
  sign(): null {
    return null;
  }
  markFailed(): void {}
}

const chain = { lamports: () => Promise.resolve(123_456n) } as unknown as PaymentChain;

function sponsored(overrides: Partial<VerifiedTransfer> = {}): VerifiedTransfer {
  return {
    payer: 'payer-a',
    source: 'source-a',
    destination: 'dest',
    amount: 5_000n,
    signature: 'sig',
    replayKey: 'key',
    feePayer: FEE_PAYER,
    layout: 'sponsored',
    recentBlockhash: 'hash',
    nonceAccount: null,
    priorityFeeLamports: 1n,
    networkFeeLamports: 10_001n,
    ...overrides,
  };
}

function sponsorship(ledger = new MemorySponsorshipLedger()) {
  let now = 10 * HOUR;
  const registry = new Registry();
  const fees = new FeeSponsorship(new OneFeePayer(), ledger, chain, new PaymentMetrics(registry), logger, config, () => now);
  return { fees, ledger, registry, nextHour: () => (now += HOUR) };
}

async function refusalOf(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (error: unknown) => error,
  );
  if (!(err instanceof GatewayError)) throw new Error('expected a refusal');
  expect(err.type).toBe('invalid_payment');
  expect(err.code).toBe('payment.fee_not_sponsored');
  expect(ERROR_STATUS[err.type]).toBe(402);
  expect(err.message).toMatch(/pay the fee yourself/);
  return err.message;
}

/** 40,004 of the window's 50,000 in four fees, two per wallet and client: less than one more fee is left. */
async function spendWindow(fees: FeeSponsorship): Promise<void> {
  for (const [payer, client] of [
    ['payer-a', 'ip-1'],
    ['payer-a', 'ip-1'],
    ['payer-b', 'ip-2'],
    ['payer-b', 'ip-2'],
  ])
    await fees.hold(sponsored({ payer }), client);
}

describe('FeeSponsorship', () => {
  it('advertises the fee payer for quotes from GW_SPONSOR_MIN_ATOMIC up', () => {
    const { fees } = sponsorship();
    expect(fees.feePayerFor(999n)).toBeNull();
    expect(fees.feePayerFor(1_000n)).toBe(FEE_PAYER);
  });

  it('with a global bound of 0 offers no sponsorship at all, and is not exhausted', async () => {
    const fees = new FeeSponsorship(new OneFeePayer(), new MemorySponsorshipLedger(), chain, new PaymentMetrics(new Registry()), logger, {
      sponsorship: { ...config.sponsorship, lamportsPerWindow: 0n },
    } as GatewayConfig);
    expect(fees.feePayerFor(5_000n)).toBeNull();
    expect(fees.state()).toEqual({ configured: false, windowLamports: 0n, exhausted: false });
    expect(await refusalOf(fees.hold(sponsored(), 'ip-1'))).toMatch(/sponsored all the fees it will this hour/);
  });

  it('judges the payment itself: its priority fee and its quote; client-paid payments never', () => {
    const { fees } = sponsorship();
    expect(fees.refusal(sponsored(), 1_000n)).toBeNull();
    expect(fees.refusal(sponsored({ priorityFeeLamports: 10_001n }), 1_000n)?.message).toMatch(/priority fee of 10001 lamports is above the 10000 sponsored per payment\); pay the fee yourself/);
    expect(fees.refusal(sponsored(), 999n)?.message).toMatch(/quotes below 1000 atomic USDC are not sponsored/);
    expect(fees.refusal(sponsored({ layout: 'client-paid', priorityFeeLamports: 1_000_000n }), 1n)).toBeNull();
  });

  it('charges the wallet, the client and the whole window; past any, a 402 naming it', async () => {
    const { fees } = sponsorship();
    await fees.hold(sponsored(), 'ip-1');
    await fees.hold(sponsored(), 'ip-1');
    expect(await refusalOf(fees.hold(sponsored(), 'ip-2'))).toMatch(/this wallet has used its sponsored fees/);
    expect(await refusalOf(fees.hold(sponsored({ payer: 'payer-b' }), 'ip-1'))).toMatch(/this client has used its sponsored fees/);
    await fees.hold(sponsored({ payer: 'payer-b' }), 'ip-2');
    await fees.hold(sponsored({ payer: 'payer-c' }), 'ip-3');
    expect(await refusalOf(fees.hold(sponsored({ payer: 'payer-d' }), 'ip-4'))).toMatch(/sponsored all the fees it will this hour/);
    expect(await fees.hold(sponsored({ layout: 'client-paid' }), 'ip-1')).toBeNull();
  });

  it('refunds a payment never sent, keeps one that landed (even with an error), and stops advertising once the window is spent until it turns', async () => {
    const { fees, nextHour } = sponsorship();
    const released = await fees.hold(sponsored(), 'ip-1');
    await released?.release();
    await released?.release();
    expect(fees.state().windowLamports).toBe(0n);
    const failedLanding = await fees.hold(sponsored(), 'ip-1');
    await failedLanding?.landed(false);
    await fees.hold(sponsored({ payer: 'payer-b' }), 'ip-2');
    await fees.hold(sponsored({ payer: 'payer-c' }), 'ip-3');
    expect(fees.state()).toEqual({ configured: true, windowLamports: 30_003n, exhausted: false });
    await fees.hold(sponsored({ payer: 'payer-d', networkFeeLamports: 15_000n }), 'ip-4');
    // 45,003 of 50,000: less than one sponsored fee is left.
    expect(fees.exhausted()).toBe(true);
    expect(fees.feePayerFor(5_000n)).toBeNull();
    nextHour();
    expect(fees.exhausted()).toBe(false);
    expect(fees.feePayerFor(5_000n)).toBe(FEE_PAYER);
  });

  it('shows the window, the bound, the refusals and the fee payer balances in metrics', async () => {
    const { fees, registry } = sponsorship();
    await fees.hold(sponsored(), 'ip-1');
    fees.refusal(sponsored({ priorityFeeLamports: 20_000n }), 5_000n);
    const text = await registry.metrics();
    expect(text).toContain('gw_sponsorship_window_lamports 10001');
    expect(text).toContain('gw_sponsorship_exhausted 0');
    expect(text).toContain('gw_sponsorship_charged_lamports_total 10001');
    expect(text).toContain('gw_sponsorship_refusals_total{bound="priority"} 1');
    expect(text).toContain(`gw_fee_payer_balance_lamports{fee_payer="${FEE_PAYER}"} 123456`);
  });

  it('counts refusals by the bound that refused, and shows when the global bound is reached', async () => {
    const { fees, registry } = sponsorship();
    fees.refusal(sponsored(), 999n);
    await fees.hold(sponsored(), 'ip-1');
    await fees.hold(sponsored(), 'ip-1');
    await refusalOf(fees.hold(sponsored(), 'ip-2'));
    await refusalOf(fees.hold(sponsored({ payer: 'payer-b' }), 'ip-1'));
    await fees.hold(sponsored({ payer: 'payer-b' }), 'ip-2');
    await fees.hold(sponsored({ payer: 'payer-b' }), 'ip-2');
    await refusalOf(fees.hold(sponsored({ payer: 'payer-c' }), 'ip-3'));
    const text = await registry.metrics();
    for (const bound of ['quote', 'wallet', 'client', 'global']) expect(text).toContain(`gw_sponsorship_refusals_total{bound="${bound}"} 1`);
    expect(text).toContain('gw_sponsorship_window_lamports 40004');
    expect(text).toContain('gw_sponsorship_exhausted 1');
  });

  it('gives a payment released after the window turned back to its own window, leaving the new window as seen', async () => {
    const { fees, ledger, nextHour } = sponsorship();
    const late = await fees.hold(sponsored(), 'ip-1');
    nextHour();
    await spendWindow(fees);
    await late?.release();
    // The old window's refund must not make this instance advertise a fee payer the new window cannot pay for.
    expect(fees.state()).toEqual({ configured: true, windowLamports: 40_004n, exhausted: true });
    expect(fees.feePayerFor(5_000n)).toBeNull();
    expect(await ledger.total(10, 'global')).toBe(0n);
    expect(await ledger.total(11, 'global')).toBe(40_004n);
  });

  it('sees the global bound reached through another instance at its next refresh', async () => {
    jest.useFakeTimers();
    const ledger = new MemorySponsorshipLedger();
    const [spender, watcher] = [sponsorship(ledger).fees, sponsorship(ledger).fees];
    try {
      watcher.onApplicationBootstrap();
      await spendWindow(spender);
      expect(watcher.feePayerFor(5_000n)).toBe(FEE_PAYER);
      await jest.advanceTimersByTimeAsync(2_000);
      expect(watcher.exhausted()).toBe(true);
      expect(watcher.feePayerFor(5_000n)).toBeNull();
    } finally {
      watcher.beforeApplicationShutdown();
      jest.useRealTimers();
    }
  });
});
