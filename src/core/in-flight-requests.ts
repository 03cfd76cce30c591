import { Injectable } from '@nestjs/common';
import type { Response } from 'express';

/**
 * Tracks responses until they close: all of them (shutdown waits for these) and a count of the
 * capped ones (the concurrency limit applies to these).
 */
@Injectable()
export class InFlightRequests {
  readonly #responses = new Set<Response>();
  #capped = 0;
  #draining = false;
  #idleWaiters: Array<() => void> = [];
  readonly #graceOverListeners = new Set<() => void>();

  get draining(): boolean {
    return this.#draining;
  }

  /** Tracks the request until its response closes: shutdown waits for it, its body still arriving included. */
  track(res: Response): void {
    this.#responses.add(res);
    res.once('close', () => {
      this.#responses.delete(res);
      if (this.#responses.size === 0) this.#wakeIdleWaiters();
    });
  }

  /** Takes one of `limit` capped slots until the response closes; false (nothing taken) when all are taken. */
  occupy(res: Response, limit: number): boolean {
    if (this.#capped >= limit) return false;
    this.#capped += 1;
    res.once('close', () => {
      this.#capped -= 1;
    });
    return true;
  }

  /**
   * Work to stop when a shutdown's grace period ends with requests still in flight, so that they
   * answer before their connections are cut (a paid call not charged yet says so, with its receipt).
   */
  onGraceOver(listener: () => void): void {
    this.#graceOverListeners.add(listener);
  }

  /**
   * Shutdown: responses not yet started will ask the client to close the connection (so no
   * further request arrives on it); resolves once nothing is in flight, or false after `timeoutMs`
   * plus `answerMs`, the moment the `onGraceOver` listeners get to let their requests answer.
   */
  drain(timeoutMs: number, answerMs = 0): Promise<boolean> {
    this.#draining = true;
    for (const res of this.#responses) {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    }
    if (this.#responses.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        for (const listener of this.#graceOverListeners) listener();
        setTimeout(() => resolve(this.#responses.size === 0), answerMs);
      }, timeoutMs);
      this.#idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  #wakeIdleWaiters(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
