/**
 * `npm run bench:profile [-- --rate=600] [-- --seconds=10] [-- --target=quote]`: the gateway's
 * free path (or the 402 quote) under open-loop load with `node --cpu-prof`, then the profile's top
 * frames by self time, grouped by function and file (docs/performance.md, "The CPU floor"). The
 * gateway runs on one core, the fake and this generator on the other, as in `npm run bench`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { closedPort } from '../../test/support/network';
import { BENCH_MESSAGES, chatSpecs, REPO, startBenchGateway, startFakeProvider } from '../harness/bench-stack';
import { runOpenLoop } from '../harness/open-loop';
import { percentiles } from '../harness/percentiles';
import { cpuPlan, perRequest, pinSelf } from '../harness/processes';

const option = (name: string, fallback: string): string => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const RATE = Number(option('rate', '600'));
const SECONDS = Number(option('seconds', '10'));
const TARGET = option('target', 'free');
const TOP = 15;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock, which process.hrtime reads in every process. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const nowMicros = (): number => Number(process.hrtime.bigint() / 1000n);

async function main(): Promise<void> {
  const cpus = cpuPlan();
  pinSelf(cpus.client);
  const profileDir = mkdtempSync(join(tmpdir(), 'gw-profile-'));
  const [fakePort, gatewayPort, closedRpc] = await Promise.all([closedPort(), closedPort(), closedPort()]);
  const fake = await startFakeProvider(fakePort, cpus.client);
  const gateway = await startBenchGateway(
    gatewayPort,
    fakePort,
    cpus.server,
    {
      GW_SOLANA_RPC_URL: `http://127.0.0.1:${closedRpc}`,
      GW_CACHE_TTL_SECS: '0',
    },
    ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
  );
  const window = { from: 0, to: 0 };
  const spec = {
    origin: `http://127.0.0.1:${gatewayPort}`,
    path: '/v1/chat/completions',
    body: TARGET === 'quote' ? JSON.stringify({ model: 'openai/gpt-4o', messages: BENCH_MESSAGES }) : chatSpecs(fakePort, gatewayPort).free.body,
    expectStatus: TARGET === 'quote' ? 402 : 200,
  };
  try {
    await runOpenLoop({ ...spec, rate: 300, durationMs: 3_000 }); // warm-up: JIT, connection pools
    const before = await gateway.meter();
    window.from = nowMicros();
    const run = await runOpenLoop({ ...spec, rate: RATE, durationMs: SECONDS * 1000 });
    window.to = nowMicros();
    const after = await gateway.meter();
    const { cpuMs, allocKb } = perRequest(before, after, run.sent);
    const { p50, p99 } = percentiles(run.latenciesMs);
    console.log(
      `${TARGET} path at ${RATE}/s for ${SECONDS} s: ${run.errors} errors, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, ${cpuMs.toFixed(3)} ms CPU and ${allocKb.toFixed(1)} KB allocated per request, ` +
        `longest GC pause ${after.longestPauseMs.toFixed(1)} ms, ${after.fullCollections} full collections, longest loop delay ${after.longestLoopDelayMs.toFixed(1)} ms, RSS ${(after.rssBytes / 1024 / 1024).toFixed(0)} MB`,
    );
  } finally {
    await gateway.stop();
    await fake.stop();
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the gateway wrote no profile');
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as Profile;
  rmSync(profileDir, { recursive: true, force: true });
  printTop(profile, window);
}

/** Self time per function (samples where it was on top) during the measured run, as a share of the busy samples. */
function printTop(profile: Profile, window: { from: number; to: number }): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const areas = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  for (const [index, id] of profile.samples.entries()) {
    at += profile.timeDeltas[index];
    if (at < window.from || at > window.to) continue;
    const { functionName, url, lineNumber } = (byId.get(id) as ProfileNode).callFrame;
    if (functionName === '(idle)') continue;
    busy += 1;
    const where = url ? `${relative(REPO, url.replace('file://', ''))}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + 1);
    const area = areaOf(url);
    areas.set(area, (areas.get(area) ?? 0) + 1);
  }
  const rows = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([frame, samples]) => ({ frame, 'self %': ((samples / busy) * 100).toFixed(1) }));
  console.log(`top ${TOP} frames by self time, of ${busy} busy samples`);
  console.table(rows);
  console.log('self time by package (node_modules), by directory of ours (dist/), node: internals and native code');
  console.table(
    [...areas.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([area, samples]) => ({ area, 'self %': ((samples / busy) * 100).toFixed(1) })),
  );
}

/** A frame's package (node_modules/x or @scope/x), our directory (two levels under dist/), node's internals, or native. */
function areaOf(url: string): string {
  if (!url) return '(native, GC and idle-less program)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const [first, second] = url.slice(modules + 'node_modules/'.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  return relative(REPO, url.replace('file://', '')).split('/').slice(0, 4).join('/');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
