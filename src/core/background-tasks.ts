import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { AppLogger } from '../logging/app-logger';
import { GatewayConfig } from '../config/gateway-config';

/**
 * Fire-and-forget work (cache writes, usage logs, claims) goes through here: failures are logged,
 * never floating, and shutdown waits for what is pending before storage closes.
 */
@Injectable()
export class BackgroundTasks implements BeforeApplicationShutdown {
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly logger: AppLogger,
    private readonly config: GatewayConfig,
  ) {
    logger.setContext(BackgroundTasks.name);
  }

  get pending(): number {
    return this.#pending.size;
  }

  run(name: string, task: () => Promise<unknown>): void {
    const settled: Promise<void> = Promise.resolve()
      .then(task)
      .then(
        () => undefined,
        (err: unknown) => this.logger.error({ err, task: name }, 'background task failed'),
      )
      .finally(() => this.#pending.delete(settled));
    this.#pending.add(settled);
  }

  /** Resolves when every pending task has settled, or false once `timeoutMs` passed first. */
  async drain(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const done = (async () => {
      while (this.#pending.size > 0) await Promise.all([...this.#pending]);
      return true as const;
    })();
    const drained = await Promise.race([done, timedOut]);
    clearTimeout(timer);
    return drained;
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!(await this.drain(this.config.http.shutdownGraceMs))) {
      this.logger.warn({ pending: this.#pending.size }, 'shutdown: background tasks still pending after the grace period');
    }
  }
}
