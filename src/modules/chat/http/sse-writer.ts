import type { Response } from 'express';

/** Opens a Server-Sent Events response (spec 6.2). */
export function openEventStream(res: Response, status = 200): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

/** How a wire format writes its events, and what it writes into a silent stream. */
export interface EventFraming {
  frame: (event: unknown) => string;
  keepAlive: string;
}

/** OpenAI's: each event a `data:` line, and an SSE comment as the keep-alive, which clients ignore. */
export const DATA_FRAMING: EventFraming = { frame: (event) => `data: ${JSON.stringify(event)}\n\n`, keepAlive: ': keep-alive\n\n' };

/** When an event stream may be cut, and when it is kept alive. */
export interface EventStreamTimers {
  /** A reader that stalls cannot hold the connection, and what it holds, past this: the socket is closed then, as if the client had left. */
  deadlineMs: number;
  /** After this much silence a `: keep-alive` comment is written, so proxies with idle timeouts do not cut a stream that is thinking. */
  keepAliveMs: number;
}

/**
 * Writes each item as an event in `framing` (OpenAI's `data:` lines unless told), waiting for the
 * socket to drain rather than buffering without bound, and the framing's keep-alive whenever
 * nothing was written for `keepAliveMs`. Stops when the client is gone (returning ends the event
 * source too).
 */
export async function writeEvents(res: Response, events: AsyncIterable<unknown>, timers: EventStreamTimers, framing: EventFraming = DATA_FRAMING): Promise<void> {
  const deadline = setTimeout(() => res.destroy(), timers.deadlineMs);
  const keepAlive = setTimeout(() => {
    if (res.destroyed || res.writableEnded) return;
    res.write(framing.keepAlive);
    keepAlive.refresh();
  }, timers.keepAliveMs);
  try {
    for await (const event of events) {
      if (res.destroyed) return;
      keepAlive.refresh();
      if (!res.write(framing.frame(event))) await drainedOrClosed(res);
    }
  } finally {
    clearTimeout(deadline);
    clearTimeout(keepAlive);
  }
}

/** 'drain' never fires on a socket whose reader stopped and then left; 'close' does. */
function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** The terminator (`[DONE]` unless told; null: none), written only once everything before it succeeded. */
export function endEventStream(res: Response, terminator: string | null = '[DONE]'): void {
  res.end(terminator === null ? undefined : `data: ${terminator}\n\n`);
}
