/**
 * `npm run bench:overhead [-- --quick] [-- --rates=200,600] [-- --node-args=--flag,...]`: the free path's cost against its floor
 * (docs/performance.md). The fake OpenAI-compatible provider called directly, through the bare Nest
 * proxy (bench/floor) and through the gateway, at each rate, open loop; for the two servers, the CPU
 * and heap allocation per request (meter.ts) and the latency over the control's, per percentile.
 * The servers run on one core, the fake and this generator on the other. The quick loop for work
 * on the hot path; `npm run bench` prints the same columns beside Portkey.
 */
import { closedPort } from '../../test/support/network';
import { chatSpecs, startBenchGateway, startFakeProvider, startFloorProxy } from '../harness/bench-stack';
import { runOpenLoop, type LoadSpec } from '../harness/open-loop';
import { percentiles } from '../harness/percentiles';
import { cpuPlan, perRequest, pinSelf, type Started } from '../harness/processes';

const quick = process.argv.includes('--quick');
const DURATION_MS = quick ? 3_000 : 10_000;
/** `--node-args=--max-semi-space-size=32,...`: flags for the gateway's node, to try a V8 setting against the same floor. */
const GATEWAY_NODE_ARGS =
  process.argv
    .find((arg) => arg.startsWith('--node-args='))
    ?.slice('--node-args='.length)
    .split(',') ?? [];
const RATES = (process.argv.find((arg) => arg.startsWith('--rates='))?.slice('--rates='.length) ?? '200,600,1000').split(',').map(Number);

async function main(): Promise<void> {
  const cpus = cpuPlan();
  pinSelf(cpus.client);
  const [fakePort, gatewayPort, floorPort, closedRpc] = await Promise.all([closedPort(), closedPort(), closedPort(), closedPort()]);
  const fake = await startFakeProvider(fakePort, cpus.client);
  const gateway = await startBenchGateway(gatewayPort, fakePort, cpus.server, { GW_SOLANA_RPC_URL: `http://127.0.0.1:${closedRpc}`, GW_CACHE_TTL_SECS: '0' }, GATEWAY_NODE_ARGS);
  const floor = await startFloorProxy(floorPort, fakePort, cpus.server);
  const { direct, free: viaGateway } = chatSpecs(fakePort, gatewayPort);
  const viaFloor = { ...direct, origin: `http://127.0.0.1:${floorPort}`, headers: {} };
  try {
    for (const spec of [viaGateway, viaFloor, direct]) await runOpenLoop({ ...spec, rate: 300, durationMs: 2_000 }); // warm-up: JIT, connection pools
    const rows = [];
    for (const rate of RATES) {
      const control = percentiles((await runOpenLoop({ ...direct, rate, durationMs: DURATION_MS })).latenciesMs);
      rows.push({ target: 'fake directly', rate, 'p50 ms': control.p50.toFixed(3), 'p99 ms': control.p99.toFixed(3) });
      for (const [target, spec, server] of [
        ['bare Nest proxy (floor)', viaFloor, floor],
        ['gateway, free path', viaGateway, gateway],
      ] as Array<[string, Omit<LoadSpec, 'rate' | 'durationMs'>, Started]>) {
        const before = await server.meter();
        const run = await runOpenLoop({ ...spec, rate, durationMs: DURATION_MS });
        const after = await server.meter();
        const { cpuMs, allocKb } = perRequest(before, after, run.sent);
        const latency = percentiles(run.latenciesMs);
        rows.push({
          target,
          rate,
          errors: run.errors,
          'p50 ms': latency.p50.toFixed(3),
          'p99 ms': latency.p99.toFixed(3),
          'overhead p50 ms': (latency.p50 - control.p50).toFixed(3),
          'overhead p99 ms': (latency.p99 - control.p99).toFixed(3),
          'CPU ms/req': cpuMs.toFixed(3),
          'alloc KB/req': allocKb.toFixed(1),
          'RSS MB': (after.rssBytes / 1024 / 1024).toFixed(0),
          'longest GC pause ms': after.longestPauseMs.toFixed(1),
          'full GCs': after.fullCollections,
          'longest loop delay ms': after.longestLoopDelayMs.toFixed(1),
        });
      }
    }
    console.log(`free path against its floor, ${DURATION_MS / 1000} s per run, open loop; servers on CPU ${cpus.server}, fake and load generator on CPU ${cpus.client}`);
    console.table(rows);
  } finally {
    await Promise.all([gateway.stop(), floor.stop(), fake.stop()]);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
