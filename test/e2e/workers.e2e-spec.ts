import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import { createServer, get, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '../support/gateway-harness';
import { closedPort } from '../support/network';
import { createTestDatabase } from '../support/postgres';
import { emptyRedisDatabase, serviceAvailable } from '../support/services';

const repo = join(__dirname, '..', '..');
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

/** One request on a connection of its own: on a kept-alive one, every request would reach the worker that accepted it. */
function getOnce(port: number, path: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

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

  /** The pids that served these requests, from the access log lines carrying their ids. */
  async servedBy(requestIds: readonly string[]): Promise<Set<number>> {
    const byId = (): Map<string, number> => new Map(this.lines.flatMap((line) => (line.request_id && line.pid ? [[line.request_id, line.pid] as const] : [])));
    await this.waitFor('the access log lines', () => requestIds.every((id) => byId().has(id)), 10_000);
    const served = byId();
    return new Set(requestIds.map((id) => served.get(id) as number));
  }
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
  // Built once into a directory of its own: start-command.e2e-spec.ts builds into dist/ meanwhile.
  // node_modules is linked beside the build so that it resolves its dependencies as dist/ would.
  let buildRoot = '';
  let entry = '';
  beforeAll(() => {
    buildRoot = tempDir('gw-workers-build-');
    symlinkSync(join(repo, 'node_modules'), join(buildRoot, 'node_modules'), 'dir');
    const out = join(buildRoot, 'out');
    const tsc = require.resolve('typescript/bin/tsc');
    const build = spawnSync(process.execPath, [tsc, '-p', join(repo, 'tsconfig.build.json'), '--outDir', out, '--tsBuildInfoFile', join(out, '.tsbuildinfo')], {
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
    const startTwo = async (port: number): Promise<GatewayProcess> => {
      const env = await freshEnv(port, { GW_WORKERS: '2', DATABASE_URL: database?.url ?? '', REDIS_URL: await emptyRedisDatabase(12) });
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
