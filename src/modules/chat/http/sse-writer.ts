import { once } from 'node:events';
import type { Response } from 'express';

/** Opens a Server-Sent Events response (spec 6.2). */
export function openEventStream(res: Response, status = 200): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

/** Writes each item as a `data:` event, waiting for the socket to drain rather than buffering without bound. */
export async function writeEvents(res: Response, events: AsyncIterable<unknown>): Promise<void> {
  for await (const event of events) {
    if (res.destroyed) return;
    if (!res.write(`data: ${JSON.stringify(event)}\n\n`)) await once(res, 'drain');
  }
}

/** The terminator, written only once everything before it succeeded. */
export function endEventStream(res: Response): void {
  res.end('data: [DONE]\n\n');
}
