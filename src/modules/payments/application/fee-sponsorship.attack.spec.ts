import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { ComputeBudgetProgram, Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { transactionFee } from '../../../../libs/solana-localnet/transaction-fee';
import { MemorySponsorshipLedger } from '../../../adapters/memory/memory-sponsorship-ledger';
import { verifyExactTransfer } from '../../../adapters/solana/exact-transfer-verifier';
import type { GatewayConfig } from '../../../config/gateway-config';
import type { AppLogger } from '../../../logging/app-logger';
import { FeeSponsorship } from './fee-sponsorship';
import { PaymentMetrics } from './payment-metrics';
import { PaymentRejection, type VerifiedTransfer } from '../domain/exact-payment';
import { FeePayers } from '../ports/fee-payers';
import type { PaymentChain } from '../ports/payment-chain';
import { paymentTransaction, toBase64, transferChecked } from '../../../../test/support/payment-transactions';

/**
 * Unit-level attacks on the sponsorship bound of the three payment bounds (docs/decisions.md, "Money moves exactly once (2 of 2)"; the e2e ones are in
 * test/e2e/payments/payment-bounds.attack.e2e-spec.ts, the Redis exposure ledger's in src/adapters/redis/redis-exposure-ledger.int-spec.ts),
 * from its adversarial reviews: each asserts the behaviour the bounds promise.
 */

const logger = { setContext: () => undefined, info: () => undefined, warn: () => undefined, debug: () => undefined, error: () => undefined } as unknown as AppLogger;
const USDC = new PublicKey('EPjFWdd5AufqSSqeM2qKxekfXTgq7TVqDWWu5Eg6dLxZ');

class TheseFeePayers extends FeePayers {
  constructor(private readonly keys: string[]) {
    super();
  }
  advertise(): string {
    return this.keys[0];
  }
  addresses(): readonly string[] {
    return this.keys;
  }
  owns(address: string): boolean {
    return this.keys.includes(address);
  }
  sign(): null {
    return null;
  }
  markFailed(): void {}
}

describe('the per-client sponsorship bound', () => {
  const HOUR = 3_600_000;
  const config = { sponsorship: { maxPriorityLamports: 10_000n, lamportsPerWindow: 1_000_000n, walletLamportsPerWindow: 20_002n, minQuoteAtomic: 0n, windowMs: HOUR } } as GatewayConfig;
  const transfer = (payer: string): VerifiedTransfer => ({
    payer,
    source: `source-${payer}`,
    destination: 'dest',
    amount: 5_000n,
    signature: 'sig',
    replayKey: randomUUID(),
    feePayer: 'fee-payer',
    layout: 'sponsored',
    recentBlockhash: 'hash',
    nonceAccount: null,
    priorityFeeLamports: 1n,
    networkFeeLamports: 10_001n,
  });

  it('one IPv6 client (its /64) with a fresh wallet per payment cannot pass the client bound by changing the low 64 bits of its address', async () => {
    const fees = new FeeSponsorship(
      new TheseFeePayers(['fee-payer']),
      new MemorySponsorshipLedger(),
      { lamports: () => Promise.resolve(0n) } as unknown as PaymentChain,
      new PaymentMetrics(new Registry()),
      logger,
      config,
      () => 10 * HOUR,
    );
    // Room for two sponsored fees per client: the third from the same /64 must be refused.
    await fees.hold(transfer('wallet-1'), '2001:db8:1:2::1');
    await fees.hold(transfer('wallet-2'), '2001:db8:1:2::2');
    const third = await fees.hold(transfer('wallet-3'), '2001:db8:1:2::3').then(
      () => 'charged',
      (err: Error) => err.message,
    );
    expect(third).toMatch(/this client has used its sponsored fees/);
  });
});

describe('the sponsored fee a payment is charged is what the chain takes from the fee payer (defended)', () => {
  const feePayer = Keypair.generate();
  const payer = Keypair.generate();
  const payTo = Keypair.generate().publicKey;
  const feePayers = new TheseFeePayers([feePayer.publicKey.toBase58()]);
  const parties = { mint: USDC, payTo, payer, gatewayFeePayer: feePayer, recentBlockhash: Keypair.generate().publicKey.toBase58() };
  const limits: Array<number | null> = [null, 0, 1, 20_000, 199_999, 200_000];
  const prices: Array<bigint | null> = [null, 0n, 1n, 333_333n, 999_999n, 1_000_001n, 5_000_000n];

  it('for every compute budget the verifier accepts, in both layouts', () => {
    let accepted = 0;
    for (const layout of ['sponsored', 'client-paid'] as const) {
      for (const limit of limits) {
        for (const price of prices) {
          const instructions: TransactionInstruction[] = [];
          if (limit !== null) instructions.push(ComputeBudgetProgram.setComputeUnitLimit({ units: limit }));
          if (price !== null) instructions.push(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: price }));
          instructions.push(transferChecked(parties, { amount: 1_000n }));
          const transaction = paymentTransaction(parties, { layout, instructions });
          let verified: VerifiedTransfer;
          try {
            verified = verifyExactTransfer(toBase64(transaction), { payTo: payTo.toBase58(), mint: USDC.toBase58(), minimumAmount: 1_000n, allowDurableNonce: false }, feePayers);
          } catch (err) {
            if (err instanceof PaymentRejection) continue;
            throw err;
          }
          accepted += 1;
          expect({ layout, limit, price: price?.toString(), fee: verified.networkFeeLamports }).toEqual({ layout, limit, price: price?.toString(), fee: transactionFee(transaction.message) });
        }
      }
    }
    expect(accepted).toBeGreaterThan(40);
  });
});
