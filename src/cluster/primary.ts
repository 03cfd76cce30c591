import cluster, { type Worker } from 'node:cluster';
import { answerMetricsRequests } from './cluster-metrics';
import { DEFAULT_RESTART_POLICY, RestartBudget, type RestartPolicy } from './restart-budget';

/** What the primary writes to the log; the gateway's pino logger fits. */
export interface PrimaryLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface PrimaryOptions {
  count: number;
  /** The module each worker runs: this entry point, not `process.argv[1]`, which may be the start script. */
  exec: string;
  log: PrimaryLog;
  /** Added to each worker's environment. */
  workerEnv?: Record<string, string>;
  /** After a stop signal is forwarded, how long workers may take to drain before they are killed. */
  stopTimeoutMs: number;
  restartPolicy?: RestartPolicy;
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Runs `count` gateway workers sharing the listening port (node:cluster); the primary serves
 * nothing. A worker that dies unexpectedly is replaced, paced by RestartBudget; when the budget is
 * spent, or a worker of the first generation fails to start, the primary stops the rest and fails.
 * SIGTERM or SIGINT is forwarded to every worker, which drains as a single process would; the
 * primary waits for them all. It also answers the workers' scrapes of GET /metrics with every
 * worker's metrics (cluster-metrics.ts). Resolves with the primary's exit code.
 */
export function runPrimary(options: PrimaryOptions): Promise<number> {
  const { count, log } = options;
  const budget = new RestartBudget(options.restartPolicy ?? DEFAULT_RESTART_POLICY);
  const live = new Set<Worker>();
  const listened = new Set<Worker>();
  const pendingRestarts = new Set<NodeJS.Timeout>();
  let starting = true;
  let stopping = false;
  let exitCode = 0;
  let forwarded: NodeJS.Signals = 'SIGTERM';
  let killTimer: NodeJS.Timeout | undefined;

  cluster.setupPrimary({ exec: options.exec, args: process.argv.slice(2) });

  return new Promise<number>((resolve) => {
    const fork = (): void => {
      const worker = cluster.fork(options.workerEnv);
      // A message sent to a worker that has just died (a scrape's request, from prom-client too) fails
      // with EPIPE as an 'error' event on it: unheard, that would take the primary and every worker down.
      worker.on('error', (err: Error) => log.warn(`worker ${worker.process.pid}: ${err.message}`));
      live.add(worker);
      log.info(`worker ${worker.process.pid} started`);
    };

    const finish = (): void => {
      clearTimeout(killTimer);
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      cluster.off('listening', onListening);
      cluster.off('exit', onExit);
      stopAnsweringMetrics();
      resolve(exitCode);
    };

    const stop = (code: number, signal: NodeJS.Signals): void => {
      exitCode = Math.max(exitCode, code);
      if (stopping) return;
      stopping = true;
      forwarded = signal;
      for (const timer of pendingRestarts) clearTimeout(timer);
      pendingRestarts.clear();
      if (live.size === 0) return finish();
      for (const worker of live) worker.process.kill(signal);
      // Each worker bounds its own drain; this only catches one that hangs past it.
      killTimer = setTimeout(() => {
        log.error(`${live.size} worker(s) still running ${options.stopTimeoutMs} ms after ${signal}; killing them`);
        exitCode = 1;
        for (const worker of live) worker.process.kill('SIGKILL');
      }, options.stopTimeoutMs);
    };

    // Repeated signals (a terminal's Ctrl-C reaches every process of the group) must not kill the primary mid-drain.
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) return;
      log.info(`${signal}: stopping ${live.size} worker(s)`);
      stop(0, signal);
    };

    const onListening = (worker: Worker): void => {
      listened.add(worker);
      log.info(`worker ${worker.process.pid} listening`);
      if (starting && listened.size >= count) starting = false;
    };

    const onExit = (worker: Worker, code: number | null, signal: NodeJS.Signals | null): void => {
      live.delete(worker);
      listened.delete(worker);
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (stopping) {
        // A worker stopped by the forwarded signal before its handlers were installed exits by that signal: still a clean stop.
        if (code !== 0 && signal !== forwarded) exitCode = 1;
        log.info(`worker ${worker.process.pid} exited (${how}); ${live.size} left`);
        if (live.size === 0) finish();
        return;
      }
      if (starting) {
        // A worker that cannot start now will not start on a retry either (port taken, database unreachable).
        log.error(`worker ${worker.process.pid} exited during start-up (${how}); stopping`);
        return stop(1, 'SIGTERM');
      }
      const delay = budget.take();
      if (delay === null) {
        const { maxRestarts, windowMs } = options.restartPolicy ?? DEFAULT_RESTART_POLICY;
        log.error(`worker ${worker.process.pid} died (${how}) after ${maxRestarts} restarts within ${windowMs / 1000} s; giving up`);
        return stop(1, 'SIGTERM');
      }
      log.warn(`worker ${worker.process.pid} died (${how}); starting a replacement${delay > 0 ? ` in ${delay} ms` : ''}`);
      const timer = setTimeout(() => {
        pendingRestarts.delete(timer);
        fork();
      }, delay);
      pendingRestarts.add(timer);
    };

    const stopAnsweringMetrics = answerMetricsRequests();
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
    cluster.on('listening', onListening);
    cluster.on('exit', onExit);
    for (let i = 0; i < count; i++) fork();
  });
}
