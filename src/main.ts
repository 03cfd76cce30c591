import 'reflect-metadata';
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { ClusterMetricsModule } from './adapters/cluster/cluster-metrics.module';
import type { GatewayOptions } from './app.module';
import { joinClusterMetrics } from './cluster/cluster-metrics';
import { runPrimary } from './cluster/primary';
import { workerCount } from './cluster/worker-count';
import { ConfigError } from './config/env-reader';
import { loadConfig, type ConfigNotice, type LoadedConfig } from './config/load-config';
import { startGateway } from './gateway';
import { createRootLogger } from './logging/root-logger';

/** Serves in this process until SIGTERM or SIGINT, then drains and exits. */
async function serve(
  { config, notices }: LoadedConfig,
  extraNotices: ConfigNotice[],
  listenForSignal: (signal: NodeJS.Signals, handler: () => void) => void,
  options: GatewayOptions = {},
): Promise<void> {
  const gateway = await startGateway(config, { ...options, notices: [...notices, ...extraNotices] });
  const stop = (): void => {
    gateway.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`gateway: shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  listenForSignal('SIGTERM', stop);
  listenForSignal('SIGINT', stop);
}

async function main(): Promise<void> {
  if (cluster.isWorker) {
    // A worker's GET /metrics answers for all the workers, through the primary (docs/decisions.md, "Metrics across workers").
    joinClusterMetrics();
    // A worker may get a signal twice (a terminal's Ctrl-C reaches the whole group, and the primary
    // forwards it): a one-shot handler would leave the second to kill it mid-drain. close() is idempotent.
    return serve(loadConfig(process.env), [], (signal, handler) => process.on(signal, handler), { imports: [ClusterMetricsModule] });
  }

  // Validated here once, so a bad value stops the start with one line instead of crashing every worker.
  const loaded = loadConfig(process.env);
  const { config } = loaded;
  const workers = workerCount({
    value: process.env.GW_WORKERS,
    cores: availableParallelism(),
    hasDatabase: config.storage.kind === 'postgres',
    hasRedis: config.redisUrl !== null,
  });
  if (workers.count === 1) return serve(loaded, workers.notice ? [{ level: 'warn', message: workers.notice }] : [], (signal, handler) => process.once(signal, handler));

  const log = createRootLogger(config).child({ context: 'cluster' });
  log.info(`starting ${workers.count} workers on port ${config.http.port}`);
  // Unset, each process would draw its own key, and a session token signed by one worker would fail at the next.
  const workerEnv: Record<string, string> = process.env.GW_SESSION_SECRET?.trim() ? {} : { GW_SESSION_SECRET: randomBytes(32).toString('hex') };
  const code = await runPrimary({
    count: workers.count,
    exec: __filename,
    log: { info: (message) => log.info(message), warn: (message) => log.warn(message), error: (message) => log.error(message) },
    workerEnv,
    // Past the workers' own grace period, time for their background work and storage to close.
    stopTimeoutMs: config.http.shutdownGraceMs + 30_000,
  });
  process.exit(code);
}

main().catch((err: unknown) => {
  const reason = err instanceof ConfigError ? `configuration error: ${err.message}` : `failed to start: ${err instanceof Error ? err.message : String(err)}`;
  process.stderr.write(`gateway: ${reason}\n`);
  process.exit(1);
});
