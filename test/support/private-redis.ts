import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { closedPort } from './network';

export interface PrivateRedis {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** SIGKILL, then waits for the process to exit: clients see their connections reset, no goodbye. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: nothing is saved), once it answers PING. */
  restart(): Promise<void>;
  /** Kills it if it runs; later calls do nothing. */
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/**
 * A Redis server of the test's own on a free loopback port, for tests that need Redis to die: the
 * shared one at 127.0.0.1:6379 is never stopped. Needs `redis-server` on the PATH (the machines
 * that run the shared Redis have it).
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await closedPort();
  let child: ChildProcess | null = null;

  const start = async (): Promise<void> => {
    const spawned = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = spawned;
    let stderr = '';
    spawned.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<never>((_, reject) => {
      spawned.once('error', reject);
      spawned.once('exit', (code, signal) => reject(new Error(`redis-server on port ${port} exited (${signal ?? code}) before answering: ${stderr.trim()}`)));
    });
    exited.catch(() => undefined);
    await Promise.race([waitForPong(port), exited]);
  };

  const kill = async (): Promise<void> => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exit = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exit;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: async () => {
      await kill();
      await start();
    },
    close: kill,
  };
}

/** Polls PING over a raw socket until `+PONG` comes back. */
async function waitForPong(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (await ping(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}
