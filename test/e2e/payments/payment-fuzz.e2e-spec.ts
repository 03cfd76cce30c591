import * as fc from 'fast-check';
import type { RunningGateway } from '../../../src/gateway';
import { chatBody, quote, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { FUZZ_ENV, fuzzCase, PaymentFuzzer } from '../../support/payment-fuzz';

/**
 * The payment fuzzing in CI: 10,000 generated PAYMENT-SIGNATURE headers and paid bodies, with a
 * fixed seed, against one gateway on the local chain (`npm run fuzz:payments` runs 100,000 or more
 * with any seed). The properties are `PaymentFuzzer.run`'s: no 5xx, refusals in the envelope, money
 * moved only with a 200, by exactly the amount paid, at most once per signed transaction.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = 20_261_124;

describe('payment fuzzing on the local chain', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, FUZZ_ENV);
  });
  afterAll(async () => {
    await gateway?.close();
    await world?.close();
  });

  it(`${RUNS} generated payments (seed ${SEED}): no 5xx, and money moves only with a 200, exactly, once`, async () => {
    const fuzzer = new PaymentFuzzer(world, gateway, await quote(gateway, chatBody()), 10_001n);
    await fc
      .assert(
        fc.asyncProperty(fuzzCase, (recipe) => fuzzer.run(recipe)),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
      .catch((err: Error) => {
        // The gateway and chain keep state from case to case (a resend, a replay): the cases before it are part of the reproduction.
        throw new Error(`${err.message}\nthe cases before it, oldest first:\n${fuzzer.recent.map((recipe) => JSON.stringify(recipe)).join('\n')}`);
      });
    await fuzzer.settled();
    expect(fuzzer.stats.runs).toBe(RUNS);
    // Enough of them were real payments for the money property to mean something.
    expect(fuzzer.stats.served).toBeGreaterThan(RUNS / 50);
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  }, 400_000);
});
