import type { OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { AppLogger } from '../../logging/app-logger';
import type { Secret } from '../../config/secret';

/** Commands fail after this rather than wait: a slow or absent Redis must not hold requests. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;

/**
 * The one shared ioredis client. No offline queue: while Redis is away, commands fail at once
 * and each port falls back to this instance's memory (replay, limits, redelivery) or does
 * without (the cache); the client reconnects in the
 * background. Outages are logged once when they start and once when they end.
 */
export class RedisConnection implements OnApplicationShutdown {
  readonly client: Redis;
  private down = false;

  constructor(url: Secret, logger: AppLogger) {
    this.client = new Redis(url.reveal(), {
      enableOfflineQueue: false,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: 2_000,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 250, 5_000),
    });
    this.client.on('ready', () => {
      if (this.down) logger.info('redis connection restored');
      this.down = false;
    });
    this.client.on('error', (err: Error) => {
      if (!this.down) logger.warn({ err: { message: err.message } }, 'redis unavailable; falling back until it returns');
      this.down = true;
    });
  }

  /**
   * Resolves once connected, or after `timeoutMs` either way: the gateway starts serving on shared
   * state when Redis answers promptly, and on its fallbacks (degraded) when it does not.
   */
  async connected(timeoutMs: number): Promise<boolean> {
    if (this.client.status === 'ready') return true;
    return new Promise((resolve) => {
      const done = (ready: boolean): void => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        resolve(ready);
      };
      const onReady = (): void => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.client.once('ready', onReady);
    });
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async onApplicationShutdown(): Promise<void> {
    // quit() waits for Redis to answer; with Redis down it would hang, so just drop the socket then.
    if (this.client.status === 'ready') await this.client.quit().catch(() => this.client.disconnect());
    else this.client.disconnect();
  }
}
