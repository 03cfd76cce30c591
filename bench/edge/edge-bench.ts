import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { startBenchGateway, startFakeProvider } from '../harness/bench-stack';
import { percentiles } from '../harness/percentiles';
import { cpuPlan, cpuTimeMs, peakRssMb, pinSelf } from '../harness/processes';

/**
 * `npm run bench:edge` (not in CI): the attacks of the open-edge review (docs/decisions.md, "The open
 * edge"), each from one client on 127.0.0.1 against a gateway process pinned to its own core, while a
 * legitimate client on 127.0.0.2 asks for `/v1/models` twenty times a second. For each attack: the
 * gateway's CPU per attacking request (from /proc, user and system), the legitimate client's p99 and
 * failures beside it, and the gateway's peak RSS. Run it on two commits to compare (docs/performance.md,
 * "The open edge").
 */

const GATEWAY_PORT = 18_402;
const FAKE_PORT = 18_403;
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const LEGIT_INTERVAL_MS = 50;
const MiB = 1024 * 1024;

interface Attack {
  name: string;
  /** One round of the attack; resolves with how many attacking requests (or connections) it made. Rounds repeat for ATTACK_MS. */
  run(): Promise<number>;
}

/** How long each attack goes on (whole rounds), so the legitimate client has time to be measured. */
const ATTACK_MS = 5_000;

interface Row {
  attack: string;
  requests: number;
  cpuMsPerRequest: number;
  legitP99Ms: number;
  legitFailed: number;
  legitTotal: number;
  peakRssMb: number | null;
}

/** Writes `head` then `body` on a connection of its own and waits for any answer or the close (at most `holdMs`). */
function exchange(head: string, body: Buffer | null, holdMs: number): Promise<void> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: '127.0.0.1', port: GATEWAY_PORT, localAddress: '127.0.0.1' });
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, holdMs);
    socket.on('error', done);
    socket.on('close', done);
    socket.on('data', done);
    socket.on('connect', () => {
      socket.write(head);
      if (body) socket.write(body);
    });
  });
}

async function inBatches(count: number, parallel: number, one: () => Promise<void>): Promise<number> {
  for (let sent = 0; sent < count; sent += parallel) await Promise.all(Array.from({ length: Math.min(parallel, count - sent) }, one));
  return count;
}

const head = (method: string, path: string, headers: Record<string, string | number>): string =>
  `${method} ${path} HTTP/1.1\r\nHost: gateway\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

function attacks(): Attack[] {
  const nested = Buffer.alloc(10 * 1000 * 1000, '[');
  const nestedGzip = gzipSync(nested);
  const deep = Buffer.from(`{"name":"x","owner_wallet":${'['.repeat(20_000)}${']'.repeat(20_000)}}`);
  const manyValuesStart = '{"model":"auto","messages":[{"role":"user","content":"hi"}],"metadata":{"a":[';
  const manyValues = Buffer.from(`${manyValuesStart}${'{},'.repeat(Math.floor((10 * MiB - manyValuesStart.length - 8) / 3))}{}]}}`);
  return [
    {
      name: '10 MB nested JSON to POST /health',
      run: () => inBatches(2, 2, () => exchange(head('POST', '/health', { 'content-type': 'application/json', 'content-length': nested.length }), nested, 30_000)),
    },
    {
      name: 'the same gzipped (10 KB) to POST /health',
      run: () => inBatches(2, 2, () => exchange(head('POST', '/health', { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': nestedGzip.length }), nestedGzip, 30_000)),
    },
    {
      name: '10 MB nested JSON to an unknown route',
      run: () => inBatches(2, 2, () => exchange(head('POST', '/no/such/route', { 'content-type': 'application/json', 'content-length': nested.length }), nested, 30_000)),
    },
    {
      name: '256 connections trickling a 2-byte body (each held 5 s)',
      run: () => inBatches(256, 256, () => exchange(head('POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': 2 }), Buffer.from('{'), 5_000)),
    },
    {
      name: '48 stalled 10 MiB uploads to /health (9 MiB sent, each held 5 s)',
      run: () => inBatches(48, 48, () => exchange(head('GET', '/health', { 'content-type': 'application/json', 'content-length': 10 * MiB }), Buffer.alloc(9 * MiB, ' '), 5_000)),
    },
    {
      name: '20,000-deep JSON to POST /v1/orgs',
      run: () =>
        inBatches(20, 4, () => exchange(head('POST', '/v1/orgs', { 'content-type': 'application/json', 'content-length': deep.length, authorization: `Bearer ${ADMIN_TOKEN}` }), deep, 30_000)),
    },
    {
      name: '10 MiB chat body of 3.5 million {} values',
      run: () => inBatches(2, 2, () => exchange(head('POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': manyValues.length }), manyValues, 30_000)),
    },
    {
      name: 'wrong admin tokens to GET /metrics',
      run: () => inBatches(40, 4, () => exchange(head('GET', '/metrics', { authorization: 'Bearer not-the-admin-token-0123456789' }), null, 30_000)),
    },
  ];
}

/** The legitimate client: GET /v1/models from 127.0.0.2 every LEGIT_INTERVAL_MS until stopped. */
function legitimateClient(): { stop(): Promise<{ latenciesMs: number[]; failed: number }> } {
  const agent = new Agent({ keepAlive: true, localAddress: '127.0.0.2' });
  const latenciesMs: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let failed = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const started = performance.now();
      const req = request({ host: '127.0.0.1', port: GATEWAY_PORT, path: '/v1/models', agent, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) latenciesMs.push(performance.now() - started);
          else failed += 1;
          resolve();
        });
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => {
        failed += 1;
        resolve();
      });
      req.end();
    });
  const timer = setInterval(() => {
    const pending = one();
    inFlight.add(pending);
    void pending.then(() => inFlight.delete(pending));
  }, LEGIT_INTERVAL_MS);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      agent.destroy();
      return { latenciesMs, failed };
    },
  };
}

async function main(): Promise<void> {
  const plan = cpuPlan();
  pinSelf(plan.client);
  const fake = await startFakeProvider(FAKE_PORT, plan.client);
  const rows: Row[] = [];
  for (const attack of attacks()) {
    // A fresh gateway per attack: one attack's leftovers (held memory, a spent window) must not bill the next.
    const gateway = await startBenchGateway(GATEWAY_PORT, FAKE_PORT, plan.server, { GW_ADMIN_TOKEN: ADMIN_TOKEN, GW_LOG_LEVEL: 'silent', GW_MAX_CONCURRENT_REQUESTS: '256' });
    const pid = gateway.child.pid as number;
    try {
      const legit = legitimateClient();
      const before = await cpuTimeMs(pid);
      let requests = 0;
      const started = performance.now();
      while (requests === 0 || performance.now() - started < ATTACK_MS) requests += await attack.run();
      const spent = (await cpuTimeMs(pid)) - before;
      const { latenciesMs, failed } = await legit.stop();
      const p99 = latenciesMs.length > 0 ? percentiles(Float64Array.from(latenciesMs)).p99 : NaN;
      rows.push({ attack: attack.name, requests, cpuMsPerRequest: spent / requests, legitP99Ms: p99, legitFailed: failed, legitTotal: latenciesMs.length + failed, peakRssMb: await peakRssMb(pid) });
    } finally {
      await gateway.stop();
    }
    console.log(formatRow(rows[rows.length - 1]));
  }
  await fake.stop();
  console.log('\n| Attack | Attacking requests | Gateway CPU per attacking request | Legitimate p99 | Legitimate failed | Gateway peak RSS |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(formatRow(row));
}

function formatRow(row: Row): string {
  const rss = row.peakRssMb === null ? 'n/a' : `${Math.round(row.peakRssMb)} MB`;
  return `| ${row.attack} | ${row.requests} | ${row.cpuMsPerRequest.toFixed(2)} ms | ${Number.isNaN(row.legitP99Ms) ? 'none served' : `${row.legitP99Ms.toFixed(1)} ms`} | ${row.legitFailed} of ${row.legitTotal} | ${rss} |`;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
