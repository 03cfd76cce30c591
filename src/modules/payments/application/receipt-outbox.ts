import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { AppLogger } from '../../../logging/app-logger';

interface PendingWrite {
  name: string;
  write: () => Promise<unknown>;
}

const RETRY_MS = 1_000;
/** On shutdown, how long the last writes are tried before their receipts are left to the reconciler. */
const FINAL_FLUSH_MS = 3_000;

/**
 * Receipt outcomes that could not be written (storage restarting) wait here and are retried, in
 * order, until they land: a payment's outcome is never dropped because the database blinked. In
 * memory: what is still queued when the process dies stays `pending` for the reconciler.
 */
@Injectable()
export class ReceiptOutbox implements BeforeApplicationShutdown {
  private readonly queue: PendingWrite[] = [];
  private draining: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly logger: AppLogger) {
    logger.setContext(ReceiptOutbox.name);
  }

  get size(): number {
    return this.queue.length;
  }

  /** Runs `write` now (after any queued before it); a failure queues it for retry instead of failing the caller. */
  async write(name: string, write: () => Promise<unknown>): Promise<void> {
    if (this.queue.length === 0) {
      try {
        await write();
        return;
      } catch (err) {
        this.logger.warn({ err, write: name }, 'receipt write failed; queued for retry');
      }
    }
    this.queue.push({ name, write });
    this.draining ??= this.drain().finally(() => (this.draining = null));
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.stopped) {
      const next = this.queue[0];
      try {
        await next.write();
        this.queue.shift();
      } catch {
        await sleep(RETRY_MS, undefined, { ref: false });
      }
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    const deadline = Date.now() + FINAL_FLUSH_MS;
    while (this.queue.length > 0 && this.draining && Date.now() < deadline) await sleep(100);
    this.stopped = true;
    if (this.queue.length > 0) this.logger.error({ writes: this.queue.map((w) => w.name) }, 'receipt writes still queued at shutdown; their receipts stay pending for the reconciler');
  }
}
