import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { Client } from 'pg';
import type { RunningGateway } from '../../../src/gateway';
import { formatUsdc } from '../../../src/modules/billing/domain/atomic-usdc';
import { TEST_ADMIN_TOKEN, tempDir } from '../../support/gateway-harness';
import { configuredOnly, exposedMetrics, readmeCatalogue } from '../../support/metrics-catalogue';
import { closedPort } from '../../support/network';
import { createTestDatabase } from '../../support/postgres';
import { CHAT_PATH, chatBody, quote, specPaymentHeader, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { emptyRedisDatabase, serviceAvailable } from '../../support/services';
import { escrowPaymentHeader, refundAtExpiry } from '../../support/escrow-payments';
import { FINAL_STATUSES, fundedPayer, longText, readReceiptsUntil, until } from '../../support/settlement-probes';
import { expectAll, REPLAYED } from '../../support/settlement-world';

const repo = join(__dirname, '..', '..', '..');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Only what a fresh shell has, plus a loopback address, a port and a chain RPC that refuses (no internet in tests). */
async function freshEnv(port: number, extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? tempDir(),
    HOST: '127.0.0.1',
    PORT: String(port),
    GW_DATA_DIR: join(tempDir(), 'data'),
    GW_SOLANA_RPC_URL: `http://127.0.0.1:${await closedPort()}`,
    ...extra,
  };
}

interface OnceAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on a connection of its own: on a kept-alive one, every request would reach the worker that accepted it. */
function requestOnce(port: number, path: string, options: { method?: string; body?: string; headers?: Record<string, string>; localAddress?: string; timeoutMs?: number } = {}): Promise<OnceAnswer> {
  return new Promise((resolve, reject) => {
    const { method = 'GET', body, headers = {}, localAddress, timeoutMs } = options;
    const req = request({ host: '127.0.0.1', port, path, method, headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

const getOnce = (port: number, path: string): Promise<OnceAnswer> => requestOnce(port, path);

interface LogLine {
  pid?: number;
  msg?: string;
  context?: string;
  request_id?: string;
  level?: number;
}

/** `node <build>/src/main.js` with its output collected and parsed as the JSON log lines it is (stdout is a pipe). */
class GatewayProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output = '';

  constructor(entry: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get lines(): LogLine[] {
    return this.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  }

  /** Pids from the primary's "worker <pid> <event>" lines, in order. */
  workers(event: 'started' | 'listening'): number[] {
    const pattern = new RegExp(`^worker (\\d+) ${event}$`);
    return this.lines.flatMap((line) => {
      const match = line.context === 'cluster' ? pattern.exec(line.msg ?? '') : null;
      return match ? [Number(match[1])] : [];
    });
  }

  async waitFor(what: string, done: () => boolean, timeoutMs = 60_000): Promise<void> {
    const started = Date.now();
    while (!done()) {
      if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; output so far:\n${this.output}`);
      await sleep(50);
    }
  }

  /** The pid that served each of these requests, in order, from the access log lines carrying their ids. */
  async servingPids(requestIds: readonly string[]): Promise<number[]> {
    const byId = (): Map<string, number> => new Map(this.lines.flatMap((line) => (line.request_id && line.pid ? [[line.request_id, line.pid] as const] : [])));
    await this.waitFor('the access log lines', () => requestIds.every((id) => byId().has(id)), 10_000);
    const served = byId();
    return requestIds.map((id) => served.get(id) as number);
  }

  /** The pids that served these requests. */
  async servedBy(requestIds: readonly string[]): Promise<Set<number>> {
    return new Set(await this.servingPids(requestIds));
  }
}

interface ReceiptRow {
  id: string;
  status: string;
  payer_wallet: string;
  amount_charged_atomic: string;
  broadcast_at: Date | null;
}

/** Every receipt, straight from the database: those of a killed worker's requests were never named to their clients. */
async function receiptRows(databaseUrl: string): Promise<ReceiptRow[]> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    return (await pg.query<ReceiptRow>('SELECT id, status, payer_wallet, amount_charged_atomic::text, broadcast_at FROM receipts')).rows;
  } finally {
    await pg.end();
  }
}

/** A request on a connection of its own whose body is read as it comes: `text()` so far, `done` once the connection ends, whole or cut. */
function streamOnce(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string>,
): { text: () => string; done: Promise<{ status: number; headers: IncomingHttpHeaders; complete: boolean }> } {
  let text = '';
  const done = new Promise<{ status: number; headers: IncomingHttpHeaders; complete: boolean }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers, agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      const ended = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, complete: res.complete && text.includes('[DONE]') });
      res.on('end', ended);
      res.on('close', ended);
      res.on('error', ended);
    });
    req.on('error', reject);
    req.end(body);
  });
  return { text: () => text, done };
}

/** The id of the transaction in a PAYMENT-SIGNATURE header: its first signature, the payer's in the client-paid layout. */
function paymentSignatureOf(header: string): string {
  const { payload } = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { payload: { transaction: string } };
  return bs58.encode(VersionedTransaction.deserialize(Buffer.from(payload.transaction, 'base64')).signatures[0]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('GW_WORKERS', () => {
  // Built once into a directory of its own: readme-commands.e2e-spec.ts builds into dist/ meanwhile.
  // node_modules is linked beside the build so that it resolves its dependencies as dist/ would.
  // Emitted without type checking (`npm run typecheck` does that), which takes a third less CPU.
  let buildRoot = '';
  let entry = '';
  beforeAll(() => {
    buildRoot = tempDir('gw-workers-build-');
    symlinkSync(join(repo, 'node_modules'), join(buildRoot, 'node_modules'), 'dir');
    const out = join(buildRoot, 'out');
    const tsc = require.resolve('typescript/bin/tsc');
    const build = spawnSync(process.execPath, [tsc, '-p', join(repo, 'tsconfig.build.json'), '--outDir', out, '--tsBuildInfoFile', join(out, '.tsbuildinfo'), '--noCheck'], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 150_000,
    });
    if (build.status !== 0) throw new Error(`the build failed:\n${build.stdout}${build.stderr}`);
    entry = join(out, 'src', 'main.js');
  }, 180_000);
  afterAll(() => rmSync(buildRoot, { recursive: true, force: true }));

  const withServices = serviceAvailable('postgres') && serviceAvailable('redis') ? describe : describe.skip;
  withServices('with PostgreSQL and Redis', () => {
    let database: { url: string; drop: () => Promise<void> } | undefined;
    const started: GatewayProcess[] = [];
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => {
      // Whatever a failed test left behind, so that no worker outlives the run holding the database.
      for (const gateway of started) {
        for (const pid of [gateway.child.pid ?? 0, ...gateway.workers('started')]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
        await gateway.exited;
      }
      await database?.drop();
    });

    /** GW_WORKERS=2 on the test database and an emptied Redis database. */
    const startTwo = async (port: number, extra: Record<string, string> = {}): Promise<GatewayProcess> => {
      const env = await freshEnv(port, { GW_WORKERS: '2', DATABASE_URL: database?.url ?? '', REDIS_URL: await emptyRedisDatabase(12), ...extra });
      const gateway = new GatewayProcess(entry, env);
      started.push(gateway);
      return gateway;
    };

    it('`2` serves from two workers on one port, replaces one that is killed, and drains them all on SIGTERM', async () => {
      const port = await closedPort();
      const running = await startTwo(port);
      await running.waitFor('two workers listening', () => running.workers('listening').length >= 2);
      const [first, second] = running.workers('started');
      expect(new Set(running.workers('listening'))).toEqual(new Set([first, second]));
      expect(running.lines.find((line) => line.context === 'cluster')?.msg).toBe(`starting 2 workers on port ${port}`);

      // Round-robin hands each new connection to the next worker; a few cover both.
      const health = await getOnce(port, '/health');
      expect(health.status).toBe(200);
      const ids = [String(health.headers['x-gw-request-id'])];
      for (let i = 0; i < 7; i++) ids.push(String((await getOnce(port, '/health')).headers['x-gw-request-id']));
      expect(await running.servedBy(ids)).toEqual(new Set([first, second]));
      expect(running.child.pid).not.toBe(first);
      expect(running.child.pid).not.toBe(second);

      process.kill(first, 'SIGKILL');
      await running.waitFor('the primary to notice', () => running.output.includes(`worker ${first} died (signal SIGKILL); starting a replacement`), 10_000);
      expect((await getOnce(port, '/health')).status).toBe(200);
      await running.waitFor('a replacement listening', () => running.workers('listening').length >= 3);
      const replacement = running.workers('started')[2];
      expect(running.workers('listening')[2]).toBe(replacement);
      expect(alive(first)).toBe(false);
      const after: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await getOnce(port, '/health');
        expect(res.status).toBe(200);
        after.push(String(res.headers['x-gw-request-id']));
      }
      expect(await running.servedBy(after)).toEqual(new Set([second, replacement]));

      running.child.kill('SIGTERM');
      expect(await running.exited).toEqual({ code: 0, signal: null });
      expect(alive(second)).toBe(false);
      expect(alive(replacement)).toBe(false);
      const drained = running.lines.filter((line) => line.msg === 'shutdown: no longer accepting connections; draining in-flight requests').map((line) => line.pid);
      expect(new Set(drained)).toEqual(new Set([second, replacement]));
      expect(running.output).toContain('SIGTERM: stopping 2 worker(s)');
    }, 120_000);

    it('answers GET /metrics with the metrics of both workers, summed, whichever worker takes the scrape', async () => {
      const port = await closedPort();
      const running = await startTwo(port, { GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
      await running.waitFor('two workers listening', () => running.workers('listening').length >= 2);
      const pids = new Set(running.workers('listening'));

      const K = 6;
      const ids: string[] = [];
      for (let i = 0; i < K; i++) ids.push(String((await getOnce(port, '/health/live')).headers['x-gw-request-id']));
      expect(await running.servedBy(ids)).toEqual(pids);

      const scrapes: OnceAnswer[] = [];
      for (let i = 0; i < 4; i++) scrapes.push(await requestOnce(port, '/metrics', { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }));
      expect(await running.servedBy(scrapes.map((scrape) => String(scrape.headers['x-gw-request-id'])))).toEqual(pids);
      const liveRequests = (text: string): number =>
        [...text.matchAll(/^gw_http_requests_total\{([^}]*)\} (\S+)$/gm)].filter(([, labels]) => labels.includes('route="/health/live"')).reduce((sum, [, , value]) => sum + Number(value), 0);
      for (const scrape of scrapes) {
        expect(scrape.status).toBe(200);
        expect(scrape.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
        expect(liveRequests(scrape.body)).toBe(K);
      }
      // The sum keeps the catalogue's names: the process start time too, which prom-client would leave out.
      const catalogue = [...readmeCatalogue().values()].filter((entry) => !configuredOnly(entry)).map((entry) => `${entry.name} ${entry.type}`);
      expect([...exposedMetrics(scrapes[0].body)].map(([name, type]) => `${name} ${type}`).sort()).toEqual(catalogue.sort());
      // Earlier scrapes are counted by the worker that answered each, and show in the later ones whichever worker answers.
      const scraped = (text: string): number => [...text.matchAll(/^gw_http_requests_total\{[^}]*route="\/metrics"[^}]*\} (\S+)$/gm)].reduce((sum, [, value]) => sum + Number(value), 0);
      expect(scrapes.map((scrape) => scraped(scrape.body))).toEqual([0, 1, 2, 3]);

      running.child.kill('SIGTERM');
      expect(await running.exited).toEqual({ code: 0, signal: null });
    }, 60_000);

    it('gives up on workers that keep dying: after 5 restarts within a minute it stops the rest and exits 1', async () => {
      const port = await closedPort();
      const running = await startTwo(port);
      await running.waitFor('two workers listening', () => running.workers('listening').length >= 2);
      // Kill the newest worker each time it is up: its replacements come after 0, 0.5, 1, 2 and 4 s.
      for (let kills = 1; kills <= 6; kills++) {
        const victim = running.workers('listening').at(-1) as number;
        process.kill(victim, 'SIGKILL');
        if (kills === 6) break;
        await running.waitFor(`replacement ${kills}`, () => running.workers('listening').length >= 2 + kills, 30_000);
      }
      expect(await running.exited).toEqual({ code: 1, signal: null });
      expect(running.output).toMatch(/"worker \d+ died \(signal SIGKILL\) after 5 restarts within 60 s; giving up"/);
      expect(running.output).toContain('starting a replacement in 4000 ms');
      for (const pid of running.workers('started')) expect(alive(pid)).toBe(false);
    }, 120_000);

    it('exits 1 when the workers cannot start, without restarting them', async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      try {
        const running = await startTwo((taken.address() as AddressInfo).port);
        expect(await running.exited).toEqual({ code: 1, signal: null });
        expect(running.output).toContain('EADDRINUSE');
        expect(running.output).toMatch(/"worker \d+ exited during start-up \(code 1\); stopping"/);
        expect(running.workers('started')).toHaveLength(2);
        for (const pid of running.workers('started')) expect(alive(pid)).toBe(false);
      } finally {
        taken.close();
      }
    }, 60_000);

    // The cross-instance scenarios (free tier, replay protection, budgets) against the workers of one
    // gateway process rather than two gateways inside the test's process, and a worker killed under paid load.
    describe('on the local chain: state shared by the workers', () => {
      let world: PaidWorld;
      beforeAll(async () => {
        // With the escrow program too: exact payments are what most tests here pay with; one pays with escrow.
        world = await startPaidWorld({ escrow: true });
      });
      afterEach(() => world.upstreams.resetAll());
      afterAll(() => world?.close());

      interface PaidWorkers {
        gateway: GatewayProcess;
        port: number;
        /** What `quote` and `readReceiptsUntil` need of a gateway: its URL. */
        client: RunningGateway;
        pids: number[];
        database: string;
      }

      /**
       * GW_WORKERS=2 on the paid world, a database of its own and an emptied Redis database, once
       * both workers listen; `run` gets it, and it is stopped (SIGTERM) and its database dropped after.
       */
      async function onPaidWorkers(env: Record<string, string>, run: (workers: PaidWorkers) => Promise<void>): Promise<void> {
        const db = await createTestDatabase();
        try {
          const port = await closedPort();
          const gateway = new GatewayProcess(
            entry,
            await freshEnv(port, {
              ...world.env,
              GW_WORKERS: '2',
              DATABASE_URL: db.url,
              REDIS_URL: await emptyRedisDatabase(12),
              GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
              GW_ENTERPRISE_RATE_LIMIT: '10000',
              GW_MAX_CONCURRENT_REQUESTS: '5000',
              GW_SHUTDOWN_GRACE_SECS: '1',
              ...env,
            }),
          );
          started.push(gateway);
          try {
            await gateway.waitFor('two workers listening', () => gateway.workers('listening').length >= 2);
            await run({ gateway, port, client: { url: `http://127.0.0.1:${port}` } as RunningGateway, pids: gateway.workers('listening'), database: db.url });
          } finally {
            if (gateway.child.exitCode === null && gateway.child.signalCode === null) gateway.child.kill('SIGTERM');
            await gateway.exited;
          }
        } finally {
          await db.drop();
        }
      }

      const postChatOnce = (port: number, body: unknown, headers: Record<string, string> = {}, localAddress?: string): Promise<OnceAnswer> =>
        requestOnce(port, CHAT_PATH, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers }, localAddress });

      const requestIds = (answers: OnceAnswer[]): string[] => answers.map((answer) => String(answer.headers['x-gw-request-id']));

      /** `status code` of each answer, counted. */
      const tally = (answers: OnceAnswer[]): Record<string, number> =>
        answers.reduce<Record<string, number>>((counts, answer) => {
          const code = answer.status === 200 ? '' : (JSON.parse(answer.body) as { error?: { code?: string } }).error?.code;
          const key = `${answer.status} ${code ?? ''}`.trim();
          counts[key] = (counts[key] ?? 0) + 1;
          return counts;
        }, {});

      const recipientBalance = (): bigint => world.localnet.usdcBalance(world.recipient.publicKey);

      it(
        "holds the free tier's per-client limit and global cap across the workers",
        () =>
          onPaidWorkers({ GW_FREE_TIER_RATE_LIMIT: '2', GW_FREE_TIER_GLOBAL_RPM: '3' }, async ({ gateway, port, pids }) => {
            const free = { model: 'nvidia/gpt-oss-120b', messages: [{ role: 'user', content: 'hello' }] };
            // Sequential connections alternate between the workers, so each worker sees only part of a client's requests.
            const answers: OnceAnswer[] = [];
            for (const from of ['127.0.0.8', '127.0.0.8', '127.0.0.8', '127.0.0.9', '127.0.0.10']) answers.push(await postChatOnce(port, free, {}, from));
            expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429, 200, 429]);
            expect(answers[2].headers['x-ratelimit-limit']).toBe('2');
            expect(answers[4].headers['x-ratelimit-limit']).toBe('3');
            expect(world.upstreams.nvidia.requests).toHaveLength(3);
            const servedBy = await gateway.servingPids(requestIds(answers));
            expect(new Set(servedBy)).toEqual(new Set(pids));
            // The client's two admitted requests went to different workers: its limit of 2 was counted across them.
            expect(servedBy[0]).not.toBe(servedBy[1]);
          }),
        120_000,
      );

      it(
        'accepts one payment fired 40 times over both workers once: one 200, one transfer, one provider call',
        () =>
          onPaidWorkers({}, async ({ gateway, port, client, pids }) => {
            const payer = fundedPayer(world);
            const { header, amount } = await quote(client, chatBody());
            const payment = specPaymentHeader(world, header, { payer });
            const [recipientBefore, sentBefore] = [recipientBalance(), world.localnet.sentTransactions().length];

            const answers = await Promise.all(Array.from({ length: 40 }, () => postChatOnce(port, chatBody(), { 'payment-signature': payment })));

            expect(tally(answers)).toEqual({ '200': 1, '402 payment.replayed': 39 });
            for (const refused of answers.filter((answer) => answer.status === 402)) expect(JSON.parse(refused.body)).toEqual(REPLAYED);
            expect(world.localnet.sentTransactions().length - sentBefore).toBe(1);
            expect(recipientBalance() - recipientBefore).toBe(amount);
            expect(world.upstreams.openai.requests).toHaveLength(1);
            const winner = answers.find((answer) => answer.status === 200) as OnceAnswer;
            const [{ receipt, last }] = await readReceiptsUntil([client], [String(winner.headers['x-gw-receipt'])], (r) => FINAL_STATUSES.includes(r.status), 10_000);
            expect(receipt ?? last).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString() });
            expect(await gateway.servedBy(requestIds(answers))).toEqual(new Set(pids));
          }),
        120_000,
      );

      it(
        'holds a wallet budget of 5 quotes against 30 parallel payments over both workers: 5 served and settled, 25 refused with nothing moved',
        () =>
          onPaidWorkers({}, async ({ gateway, port, client, pids }) => {
            const N = 5;
            const COUNT = 30;
            const body = chatBody();
            const { header, amount } = await quote(client, body);
            const payer = fundedPayer(world, BigInt(COUNT) * amount + 1_000_000n);
            const wallet = payer.publicKey.toBase58();
            const limit = formatUsdc(BigInt(N) * amount);
            const admin = (method: string, budget?: unknown): Promise<OnceAnswer> =>
              requestOnce(port, `/v1/wallets/${wallet}/budget`, {
                method,
                body: budget === undefined ? undefined : JSON.stringify(budget),
                headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
              });
            expect((await admin('PUT', { daily: Number(limit) })).status).toBe(200);
            const before = { payer: world.localnet.usdcBalance(payer.publicKey), recipient: recipientBalance() };
            // The provider waits a little, so that served requests hold their reservations while the rest arrive.
            world.upstreams.openai.script(...Array.from({ length: COUNT }, () => ({ kind: 'reply' as const, firstByteDelayMs: 300 })));
            const payments = Array.from({ length: COUNT }, () => specPaymentHeader(world, header, { payer }));

            const answers = await Promise.all(payments.map((payment) => postChatOnce(port, body, { 'payment-signature': payment })));

            expect(tally(answers)).toEqual({ '200': N, '400 budget.exceeded': COUNT - N });
            expect(world.upstreams.openai.requests).toHaveLength(N);
            const expected = BigInt(N) * amount;
            await until(() => recipientBalance() - before.recipient >= expected, 20_000, `${N} payments settled`);
            await until(async () => (JSON.parse((await admin('GET')).body) as { daily_spend?: string }).daily_spend === limit, 20_000, 'the settled spend shows in the budget');
            await sleep(1_000);
            expect(recipientBalance() - before.recipient).toBe(expected);
            expect(before.payer - world.localnet.usdcBalance(payer.publicKey)).toBe(expected);
            // Read from each worker in turn: both see the one budget.
            for (let i = 0; i < 2; i++) expect(JSON.parse((await admin('GET')).body)).toMatchObject({ daily: Number(limit), daily_spend: limit });
            expect(await gateway.servedBy(requestIds(answers))).toEqual(new Set(pids));
          }),
        120_000,
      );

      it(
        'claims the escrow answer of a worker killed mid-answer: its claim was written at the first content, and the survivor lands it once due',
        () =>
          onPaidWorkers(
            // The claim of an answer whose instance died is due after the longest answer, its confirmation and the shutdown grace: 8 s here.
            { GW_STREAM_MAX_SECS: '6', GW_SETTLEMENT_CONFIRM_SECS: '1', GW_CLAIM_INTERVAL_MS: '100', GW_LEASE_TTL_SECS: '2' },
            async ({ gateway, port, client, pids }) => {
              const escrow = world.escrow as NonNullable<PaidWorld['escrow']>;
              const agent = fundedPayer(world);
              const body = chatBody({ stream: true });
              const quoted = await requestOnce(port, CHAT_PATH, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
              const offer = (JSON.parse(quoted.body) as { accepts: Array<{ scheme: string; amount: string }> }).accepts.find((entry) => entry.scheme === 'escrow');
              const amount = BigInt((offer as { amount: string }).amount);
              const { header, serviceId, expirySlot } = await escrowPaymentHeader(world, client, { amount, agent });
              const before = { agent: world.localnet.usdcBalance(agent.publicKey), provider: world.localnet.usdcBalance(escrow.provider.publicKey) };
              // 150 words, one every 30 ms: the worker dies about a third of the way in.
              world.upstreams.openai.setDefault({ kind: 'reply', text: longText(150), chunkDelayMs: 30 });

              // Connections go to the workers in turn: the one after this probe's goes to the other worker.
              const probe = await getOnce(port, '/health/live');
              const [probed] = await gateway.servingPids([String(probe.headers['x-gw-request-id'])]);
              const victim = pids.find((pid) => pid !== probed) as number;
              const streamed = streamOnce(port, CHAT_PATH, JSON.stringify(body), { 'content-type': 'application/json', 'payment-signature': header });
              await until(() => (streamed.text().match(/word\d+/g) ?? []).length >= 50, 10_000, 'fifty words streamed');
              process.kill(victim, 'SIGKILL');
              const cut = await streamed.done;
              expect(cut.status).toBe(200);
              expect(cut.complete).toBe(false);
              const receiptPath = String(cut.headers['x-gw-receipt']);

              // Nothing else ever finishes this answer: the survivor claims it once due, for the quote (its usage is unknown).
              const [{ receipt, last }] = await readReceiptsUntil([client], [receiptPath], (r) => r.status !== 'pending', 30_000);
              expect(receipt ?? last).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString() });
              expect(gateway.lines.some((line) => line.pid !== victim && line.msg === 'escrow claimed')).toBe(true);
              // After the agent's refund at expiry (which finds the escrow closed), its loss is what the receipt says, the provider's gain the same.
              await refundAtExpiry(world, agent, serviceId, expirySlot);
              expect(before.agent - world.localnet.usdcBalance(agent.publicKey)).toBe(amount);
              expect(world.localnet.usdcBalance(escrow.provider.publicKey) - before.provider).toBe(amount);
            },
          ),
        120_000,
      );

      it(
        'loses no accepted payment when a worker is killed mid-load: each one settled with its receipt, or not charged at all',
        () =>
          onPaidWorkers(
            // Short windows, so that the reconciler takes over the dead worker's receipts within seconds (docs/decisions.md, "The durable claim, receipts and the reconciler").
            { GW_REQUEST_TIMEOUT_SECS: '5', GW_SETTLEMENT_CONFIRM_SECS: '2', GW_RECONCILE_INTERVAL_SECS: '1', GW_LEASE_TTL_SECS: '2' },
            async ({ gateway, port, client, pids, database }) => {
              const COUNT = 30;
              const body = chatBody();
              const { header, amount } = await quote(client, body);
              // A payer per payment: its balance says whether that payment was charged.
              const payers = Array.from({ length: COUNT }, () => fundedPayer(world));
              const payments = payers.map((payer) => specPaymentHeader(world, header, { payer }));
              const signatures = payments.map(paymentSignatureOf);
              const payerBalances = (): bigint[] => payers.map((payer) => world.localnet.usdcBalance(payer.publicKey));
              const before = { payers: payerBalances(), recipient: recipientBalance(), landed: world.localnet.sentTransactions().length };
              // Slow enough that the kill finds requests at every stage: verified, waiting for their first content, broadcast and streaming.
              world.upstreams.openai.setDefault({ kind: 'reply', firstByteDelayMs: 300, chunkDelayMs: 100 });
              const [victim, survivor] = pids;

              const inFlight = payments.map(async (payment, i): Promise<OnceAnswer | { error: string }> => {
                await sleep(i * 40);
                return requestOnce(port, CHAT_PATH, {
                  method: 'POST',
                  body: JSON.stringify(body),
                  headers: { 'content-type': 'application/json', 'payment-signature': payment },
                  // Bounded: a connection the primary was handing to the killed worker as it died may get no
                  // answer at all (nothing of it reached the gateway, so nothing is charged); it shows in the outcomes.
                  timeoutMs: 15_000,
                }).catch((err: unknown) => ({ error: String(err) }));
              });
              await until(() => world.localnet.sentTransactions().length - before.landed >= 4, 20_000, 'the first transfers landing');
              process.kill(victim, 'SIGKILL');
              const answers = await Promise.all(inFlight);

              // The dead worker's broadcast payments first: the reconciler settles them (or sends them again) while their blockhash lives.
              await until(async () => (await receiptRows(database)).every((row) => row.status !== 'pending' || row.broadcast_at === null), 30_000, 'no broadcast receipt left pending');
              // Its payments never broadcast wait for their blockhash to expire: on a cluster within about
              // a minute, on the local chain only when told. Then they are not_charged.
              world.localnet.expireBlockhash();
              await until(async () => (await receiptRows(database)).every((row) => row.status !== 'pending'), 30_000, 'no receipt left pending');

              const rows = await receiptRows(database);
              const landed = new Map(
                world.localnet
                  .sentTransactions()
                  .slice(before.landed)
                  .map((sent) => [sent.signature, sent.err]),
              );
              const after = payerBalances();
              const outcomes = payers.map((payer, i) => {
                const answer = answers[i];
                const receipts = rows.filter((row) => row.payer_wallet === payer.publicKey.toBase58());
                return {
                  answer: 'error' in answer ? answer.error : answer.status,
                  receiptHeader: 'error' in answer ? null : ((answer.headers['x-gw-receipt'] as string | undefined) ?? null),
                  paid: before.payers[i] - after[i],
                  landed: landed.has(signatures[i]) ? (landed.get(signatures[i]) ?? 'ok') : 'no',
                  receipts: receipts.map((row) => ({ id: row.id, status: row.status, charged: row.amount_charged_atomic, broadcast: row.broadcast_at !== null })),
                };
              });
              const charged = outcomes.filter((o) => o.paid === amount);
              const settledRows = rows.filter((row) => row.status === 'settled');
              const reads = await readReceiptsUntil(
                [client],
                settledRows.map((row) => `/v1/receipts/${row.id}`),
                (r) => r.status === 'settled',
                10_000,
              );
              const paidTotal = before.payers.reduce((sum, balance, i) => sum + balance - after[i], 0n);
              expectAll(
                {
                  'the kill cut requests in flight': outcomes.some((o) => typeof o.answer === 'string'),
                  'each payment paid the quote or nothing': outcomes.every((o) => o.paid === 0n || o.paid === amount),
                  'a payment is charged exactly when its transfer landed': outcomes.every((o) => (o.paid === amount) === (o.landed === 'ok')),
                  'every charged payment has exactly one receipt, settled for the quote': charged.every(
                    (o) => o.receipts.filter((r) => r.status === 'settled' && r.charged === amount.toString()).length === 1 && o.receipts.filter((r) => r.status !== 'not_charged').length === 1,
                  ),
                  'every payment not charged has no receipt that charged it': outcomes.every(
                    (o) => o.paid === amount || o.receipts.every((r) => r.charged === '0' && (r.status === 'not_charged' || r.status === 'failed')),
                  ),
                  'every 200 was charged, and its X-Gw-Receipt names the settled receipt': outcomes.every(
                    (o) => o.answer !== 200 || (o.paid === amount && o.receipts.some((r) => `/v1/receipts/${r.id}` === o.receiptHeader && r.status === 'settled')),
                  ),
                  'no receipt is left pending': rows.every((row) => row.status !== 'pending'),
                  'the settled receipts read settled over HTTP': reads.every((read) => read.receipt?.status === 'settled'),
                  'the payers paid the settled payments, and nothing else': paidTotal === BigInt(settledRows.length) * amount && charged.length === settledRows.length,
                  'the recipient gained what the payers paid': recipientBalance() - before.recipient === paidTotal,
                },
                {
                  quote: amount.toString(),
                  victim,
                  survivor,
                  settled: settledRows.length,
                  paidTotal: paidTotal.toString(),
                  // Which worker finished which of the dead worker's receipts.
                  reconciled: gateway.lines.filter((line) => line.msg === 'reconciled a pending receipt').map((line) => `${line.pid}: ${String((line as Record<string, unknown>).status)}`),
                  outcomes,
                },
              );
              // Paid answers came from the surviving worker, those before the kill from the victim too.
              const answered = answers.flatMap((answer) => ('error' in answer ? [] : [answer]));
              expect(await gateway.servedBy(requestIds(answered))).toContain(survivor);
            },
          ),
        150_000,
      );
    });
  });

  it('`auto` without DATABASE_URL and REDIS_URL serves in one process and says why', async () => {
    const port = await closedPort();
    const running = new GatewayProcess(entry, await freshEnv(port, { GW_WORKERS: 'auto' }));
    try {
      await running.waitFor('the gateway listening', () => running.output.includes('gateway listening on'));
      expect((await getOnce(port, '/health')).status).toBe(200);
      const cores = availableParallelism();
      const notice = running.lines.find((line) => line.msg?.startsWith('GW_WORKERS=auto'));
      // On one core `auto` is one worker anyway, with nothing to explain.
      if (cores > 1) {
        expect(notice).toMatchObject({
          level: 40,
          msg: `GW_WORKERS=auto starts one worker, not ${cores}: more than one needs DATABASE_URL and REDIS_URL, for replay protection, limits, budgets and receipts shared between workers (DATABASE_URL and REDIS_URL are unset)`,
        });
      } else {
        expect(notice).toBeUndefined();
      }
      // No cluster: every line comes from the one process that was started.
      expect(new Set(running.lines.map((line) => line.pid))).toEqual(new Set([running.child.pid]));
      expect(running.lines.some((line) => line.context === 'cluster')).toBe(false);
    } finally {
      running.child.kill('SIGTERM');
    }
    expect(await running.exited).toEqual({ code: 0, signal: null });
  }, 90_000);

  it('`2` without DATABASE_URL and REDIS_URL stops the start with one line', async () => {
    const run = spawnSync(process.execPath, [entry], { env: await freshEnv(await closedPort(), { GW_WORKERS: '2' }), encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe(
      'gateway: configuration error: GW_WORKERS=2 needs DATABASE_URL and REDIS_URL, for replay protection, limits, budgets and receipts shared between workers (DATABASE_URL and REDIS_URL are unset)\n',
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
  }, 90_000);
});
