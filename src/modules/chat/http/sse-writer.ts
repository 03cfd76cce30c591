import type { Response } from 'express';

/** Opens a Server-Sent Events response (spec 6.2). */
export function openEventStream(res: Response, status = 200): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

/**
 * Writes each item as a `data:` event, waiting for the socket to drain rather than buffering
 * without bound. Stops when the client is gone (returning ends the event source too). A reader
 * that stalls cannot hold the connection, and what it holds, past `deadlineMs`: the socket is
 * closed then, as if the client had left.
 */
export async function writeEvents(res: Response, events: AsyncIterable<unknown>, deadlineMs: number): Promise<void> {
  const deadline = setTimeout(() => res.destroy(), deadlineMs);
  try {
    for await (const event of events) {
      if (res.destroyed) return;
      if (!res.write(`data: ${JSON.stringify(event)}\n\n`)) await drainedOrClosed(res);
    }
  } finally {
    clearTimeout(deadline);
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

/** The terminator, written only once everything before it succeeded. */
export function endEventStream(res: Response): void {
  res.end('data: [DONE]\n\n');
}
