/**
 * The payment fuzzing at length: generated PAYMENT-SIGNATURE headers and paid bodies against a
 * gateway on the local chain, with the properties of test/support/payment-fuzz.ts (no 5xx, money
 * only with a 200, exactly, once). CI runs 10,000 with a fixed seed (test/e2e/payments/payment-fuzz.e2e-spec.ts).
 *   npm run fuzz:payments -- [--runs 100000] [--seed N]
 */
import * as fc from 'fast-check';
import { chatBody, quote, startPaidGateway, startPaidWorld } from '../../test/support/paid-gateway';
import { FUZZ_ENV, fuzzCase, PaymentFuzzer } from '../../test/support/payment-fuzz';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} takes a whole number, not ${process.argv[index + 1]}`);
  return value;
}

async function main(): Promise<void> {
  const runs = option('runs', 100_000);
  const seed = option('seed', Math.floor(Math.random() * 2 ** 31));
  console.log(`fuzzing ${runs} payments with seed ${seed}`);
  const world = await startPaidWorld();
  const gateway = await startPaidGateway(world, FUZZ_ENV);
  const started = performance.now();
  let fuzzer: PaymentFuzzer | null = null;
  try {
    fuzzer = new PaymentFuzzer(world, gateway, await quote(gateway, chatBody()), 10_001n);
    const run = fuzzer;
    const details = await fc.check(
      fc.asyncProperty(fuzzCase, (recipe) => run.run(recipe)),
      { numRuns: runs, seed, endOnFailure: true },
    );
    if (details.failed)
      console.log(`${fc.defaultReportMessage(details)}\n${String(details.errorInstance)}\nthe cases before it, oldest first:\n${run.recent.map((recipe) => JSON.stringify(recipe)).join('\n')}`);
    else await run.settled();
    const health = await fetch(`${gateway.url}/health`);
    if (health.status !== 200) throw new Error(`after the runs /health answers ${health.status}`);
    console.log(`failures: ${details.failed ? 1 : 0} (fast-check stops at the first)`);
    process.exitCode = details.failed ? 1 : 0;
  } finally {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (fuzzer) {
      const { stats } = fuzzer;
      console.log(`${stats.runs} runs (${stats.requests} requests) in ${seconds} s, seed ${seed}; served and charged ${stats.served} (${stats.charged} atomic USDC in all)`);
      console.table([...stats.byStatus].sort(([a], [b]) => a - b).map(([status, count]) => ({ status, count })));
      const statuses = [...stats.byStatus.keys()].sort((a, b) => a - b);
      console.table(Object.fromEntries([...stats.byKind].map(([kind, counts]) => [kind, Object.fromEntries(statuses.map((status) => [status, counts.get(status) ?? 0]))])));
      if (stats.redelivered > 0) console.log(`redelivered answers: ${stats.redelivered}`);
    }
    await gateway.close();
    await world.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
