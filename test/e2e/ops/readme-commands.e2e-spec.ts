import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_CSP } from '../../../src/modules/console/http/console-csp';
import { tempDir } from '../../support/gateway-harness';
import { closedPort } from '../../support/network';
import { emptyRedisDatabase, serviceAvailable } from '../../support/services';

const repo = join(__dirname, '..', '..', '..');

/** Only what a fresh shell has, plus a loopback address and a chain RPC that refuses (no internet in tests). */
async function freshEnv(extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? tempDir(),
    HOST: '127.0.0.1',
    GW_DATA_DIR: join(tempDir(), 'data'),
    GW_SOLANA_RPC_URL: `http://127.0.0.1:${await closedPort()}`,
    ...extra,
  };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('the README commands', () => {
  it('`npm start` serves /health and the console on the embedded defaults and stops cleanly on SIGTERM', async () => {
    const port = await closedPort();
    const child = spawn('npm', ['start'], { cwd: repo, env: await freshEnv({ PORT: String(port) }) });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = exitOf(child);

    const started = Date.now();
    let health: Response | undefined;
    while (!health && Date.now() - started < 120_000) {
      health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (!health) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(health?.status).toBe(200);
    expect(await health?.json()).toEqual({ status: 'degraded' });
    process.stdout.write(`npm start answered /health after ${Date.now() - started} ms\n`);
    // The build it ran included the console's bundle.
    const console = await fetch(`http://127.0.0.1:${port}/console`);
    expect([console.status, console.headers.get('content-security-policy')]).toEqual([200, CONSOLE_CSP]);

    // Every log line names the gateway process; signal it as an orchestrator would.
    const pid = (JSON.parse(stdout.split('\n').find((line) => line.startsWith('{')) ?? '{}') as { pid?: number }).pid;
    expect(pid).toEqual(expect.any(Number));
    process.kill(pid as number, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('storage pglite');
    expect(stdout).toContain('shutdown: no longer accepting connections');
  }, 180_000);

  it('refuses a bad value at start with one line naming the variable', async () => {
    const run = spawnSync(process.execPath, ['scripts/start.mjs'], { cwd: repo, env: await freshEnv({ PORT: 'eighty' }), encoding: 'utf8', timeout: 120_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('gateway: configuration error: PORT must be an integer between 0 and 65535 (got "eighty")\n');
  }, 180_000);

  it('refuses to start in production without a recipient wallet', async () => {
    const run = spawnSync(process.execPath, ['scripts/start.mjs'], { cwd: repo, env: await freshEnv({ GW_ENV: 'production' }), encoding: 'utf8', timeout: 120_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('gateway: configuration error: GW_RECIPIENT_WALLET is required when GW_ENV=production\n');
  }, 180_000);

  it('refuses a malformed catalog at start, naming the entry', async () => {
    const file = join(tempDir(), 'catalog.json');
    writeFileSync(file, JSON.stringify({ version: 'x', models: [{ id: 'openai/broken' }], aliases: {}, profiles: {}, profile_aliases: {} }));
    const run = spawnSync(process.execPath, ['scripts/start.mjs'], { cwd: repo, env: await freshEnv({ GW_CATALOG_FILE: file }), encoding: 'utf8', timeout: 120_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`gateway: configuration error: GW_CATALOG_FILE ${file}: models[0] (openai/broken): missing field upstream_model\n`);
  }, 180_000);

  /** `npm run demo` with `args`, as a newcomer runs it: only PATH, HOME and `env`. */
  const demo = (args: string[], env: Record<string, string> = {}) =>
    spawnSync('npm', ['run', 'demo', '--silent', ...(args.length > 0 ? ['--', ...args] : [])], {
      cwd: repo,
      env: { PATH: process.env.PATH, HOME: process.env.HOME ?? tempDir(), ...env },
      encoding: 'utf8',
      timeout: 170_000,
    });

  // Here rather than in a suite of its own: it builds into dist/ too, so it must not run beside `npm start`.
  it('`npm run demo` pays one chat request on the local chain and shows the quote, payment, answer, receipt and balances', () => {
    const run = demo([]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = run.stdout;
    const amount = /1\. The quote \(HTTP 402\)\n {2}(\d+) atomic USDC/.exec(out)?.[1];
    expect(amount).toBeDefined();
    expect(out).toContain('2. The payment (PAYMENT-SIGNATURE)');
    expect(out).toMatch(/3\. The answer \(HTTP 200\)\n {2}openai\/gpt-4o-mini: "fake openai reply to: /);
    expect(out).toContain('"status": "settled"');
    expect(out).toContain('Balances before\n  payer 5.000000 USDC, gateway recipient 0.000000 USDC');
    const after = (5_000_000 - Number(amount)).toString().padStart(7, '0');
    expect(out).toContain(`Balances after\n  payer ${after.slice(0, -6)}.${after.slice(-6)} USDC, gateway recipient 0.${Number(amount).toString().padStart(6, '0')} USDC`);
  }, 180_000);

  it('`npm run demo -- --escrow` deposits, gets its answer, and shows the claim of the real cost and the refund of the rest', () => {
    const run = demo(['--escrow']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = run.stdout;
    expect(out).toContain('2. The deposit (PAYMENT-SIGNATURE, escrow)');
    expect(out).toMatch(/3\. The answer \(HTTP 200\)\n {2}openai\/gpt-4o: "fake openai reply to: /);
    expect(out).toContain('"status": "settled"');
    const deposit = Number(/"deposit_atomic": "(\d+)"/.exec(out)?.[1]);
    const claimed = Number(/"claimed_atomic": "(\d+)"/.exec(out)?.[1]);
    expect(out).toContain(`"refunded_atomic": "${deposit - claimed}"`);
    expect(claimed).toBeLessThan(deposit);
    const after = (5_000_000 - claimed).toString().padStart(7, '0');
    expect(out).toContain(`Balances after\n  agent ${after.slice(0, -6)}.${after.slice(-6)} USDC, escrow provider 0.${claimed.toString().padStart(6, '0')} USDC`);
  }, 180_000);

  // Channels need Redis: without it the demo says so and exits non-zero, and this test is skipped (the global setup names the missing service).
  (serviceAvailable('redis') ? it : it.skip)(
    '`npm run demo -- --channel` opens a channel, pays 20 requests off chain, and closes it: 2 transactions, the rest refunded',
    async () => {
      const redisUrl = await emptyRedisDatabase(13);
      const run = demo(['--channel'], { REDIS_URL: redisUrl });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const out = run.stdout;
      expect(out).toContain('Balances before\n  agent 5.000000 USDC, custody 0.000000 USDC, gateway recipient 0.000000 USDC');
      expect(out).toMatch(/1\. The open \(POST \/v1\/channel\/open, HTTP 201\)\n {2}channel \w+, 1\.000000 USDC deposited/);
      expect(out).toContain('On-chain transactions\n  2 for 20 requests (the open and the close)');
      const drawn = Number(/drawn 0\.(\d{6}) USDC off chain/.exec(out)?.[1]);
      expect(drawn).toBeGreaterThan(0);
      const refund = (1_000_000 - drawn).toString().padStart(7, '0');
      expect(out).toContain(`closed: refund ${refund.slice(0, -6)}.${refund.slice(-6)} USDC to the agent`);
      const after = (5_000_000 - drawn).toString().padStart(7, '0');
      expect(out).toContain(`Balances after\n  agent ${after.slice(0, -6)}.${after.slice(-6)} USDC, custody 0.000000 USDC, gateway recipient 0.${drawn.toString().padStart(6, '0')} USDC`);
    },
    180_000,
  );

  // Also here, for the same reason: it builds into dist/.
  it('`npm run bench -- --quick` runs every scenario end to end and prints its tables', () => {
    const run = spawnSync('npm', ['run', 'bench', '--silent', '--', '--quick'], {
      cwd: repo,
      env: { PATH: process.env.PATH, HOME: process.env.HOME ?? tempDir() },
      encoding: 'utf8',
      timeout: 175_000,
    });
    expect(run.status).toBe(0);
    for (const scenario of [
      'fake provider directly (control)',
      'gateway, free path',
      'gateway, free path, /v1/messages',
      'Portkey gateway',
      'gateway, 402 quote',
      'gateway, free path, streamed',
      'gateway, paid (exact, local chain)',
      'gateway, cache hit',
    ]) {
      expect(run.stdout).toContain(scenario);
    }
    expect(run.stdout).toContain('ratio p99 (ours/Portkey)');
    expect(run.stdout).toContain('ratio p99 (messages/chat)');
    expect(run.stdout).toMatch(/peak RSS: gateway \d+ MB, Portkey \d+ MB/);
  }, 180_000);
});
