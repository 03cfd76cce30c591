/**
 * Gateway overhead on the free path (docs/performance.md): the fake OpenAI-compatible provider called
 * directly, then through the gateway, at 200 and 1,000 requests per second, open loop; overhead
 * is the difference per percentile. The gateway runs on one core, the fake and this generator on
 * the other.   npm run bench:overhead [-- --quick]
 */
import { runOpenLoop } from '../harness/open-loop';
import { percentiles } from '../harness/percentiles';
import { closedPort } from '../../test/support/network';
import { startBenchGateway, startFakeProvider } from '../harness/bench-stack';
import { cpuPlan, pinSelf } from '../harness/processes';

const quick = process.argv.includes('--quick');
const DURATION_MS = quick ? 3_000 : 10_000;
const RATES = [200, 1000];

async function main(): Promise<void> {
  const cpus = cpuPlan();
  pinSelf(cpus.client);
  const [fakePort, gatewayPort, closedRpc] = await Promise.all([closedPort(), closedPort(), closedPort()]);
  const fake = await startFakeProvider(fakePort, cpus.client);
  const gateway = await startBenchGateway(gatewayPort, fakePort, cpus.server, { GW_SOLANA_RPC_URL: `http://127.0.0.1:${closedRpc}`, GW_CACHE_TTL_SECS: '0' });
  const messages = [{ role: 'user', content: 'Benchmark prompt: say hello.' }];
  const direct = { origin: `http://127.0.0.1:${fakePort}`, path: '/v1/chat/completions', body: JSON.stringify({ model: 'openai/gpt-oss-120b', messages }), headers: { authorization: 'Bearer bench' } };
  const viaGateway = { origin: `http://127.0.0.1:${gatewayPort}`, path: '/v1/chat/completions', body: JSON.stringify({ model: 'nvidia/gpt-oss-120b', messages }) };
  try {
    await runOpenLoop({ ...viaGateway, rate: 200, durationMs: 2_000 }); // warm-up: JIT, connection pools
    await runOpenLoop({ ...direct, rate: 200, durationMs: 1_000 });
    const rows = [];
    for (const rate of RATES) {
      const d = await runOpenLoop({ ...direct, rate, durationMs: DURATION_MS });
      const g = await runOpenLoop({ ...viaGateway, rate, durationMs: DURATION_MS });
      const [dp, gp] = [percentiles(d.latenciesMs), percentiles(g.latenciesMs)];
      rows.push(
        { target: 'fake directly', rate, achieved: d.achievedRate.toFixed(0), errors: d.errors, 'p50 ms': dp.p50.toFixed(3), 'p99 ms': dp.p99.toFixed(3) },
        { target: 'via gateway (free path)', rate, achieved: g.achievedRate.toFixed(0), errors: g.errors, 'p50 ms': gp.p50.toFixed(3), 'p99 ms': gp.p99.toFixed(3) },
        { target: 'gateway overhead', rate, achieved: '', errors: '', 'p50 ms': (gp.p50 - dp.p50).toFixed(3), 'p99 ms': (gp.p99 - dp.p99).toFixed(3) },
      );
    }
    console.log(`gateway overhead, ${DURATION_MS / 1000} s per run, open loop; gateway on CPU ${cpus.server}, fake and load generator on CPU ${cpus.client}`);
    console.table(rows);
  } finally {
    await Promise.all([gateway.stop(), fake.stop()]);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
