import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { writeEvents } from './sse-writer';

/** What writeEvents touches of an Express response, recording what was written. */
class RecordingResponse extends EventEmitter {
  readonly written: string[] = [];
  destroyed = false;
  writableEnded = false;

  write(text: string): boolean {
    this.written.push(text);
    return true;
  }

  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

/** An event source the test feeds one event at a time. */
function controlledEvents(): { events: AsyncGenerator<unknown>; push(event: unknown): void; end(): void } {
  const waiting: Array<(result: IteratorResult<unknown>) => void> = [];
  const events: AsyncGenerator<unknown> = {
    next: () => new Promise((resolve) => waiting.push(resolve)),
    return: async () => ({ done: true, value: undefined }),
    throw: async (err: unknown) => Promise.reject(err),
    [Symbol.asyncIterator]() {
      return this;
    },
    [Symbol.asyncDispose]: async () => undefined,
  };
  return { events, push: (value) => waiting.shift()?.({ done: false, value }), end: () => waiting.shift()?.({ done: true, value: undefined }) };
}

const KEEP_ALIVE = ': keep-alive\n\n';
const timers = { deadlineMs: 60_000, keepAliveMs: 15_000 };

describe('writeEvents keep-alives', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('writes a keep-alive comment after each 15 s without data, counting from the last event', async () => {
    const res = new RecordingResponse();
    const source = controlledEvents();
    const writing = writeEvents(res as unknown as Response, source.events, timers);

    source.push({ n: 1 });
    await jest.advanceTimersByTimeAsync(14_999);
    expect(res.written).toEqual(['data: {"n":1}\n\n']);
    await jest.advanceTimersByTimeAsync(1);
    expect(res.written.at(-1)).toBe(KEEP_ALIVE);

    await jest.advanceTimersByTimeAsync(10_000);
    source.push({ n: 2 });
    await jest.advanceTimersByTimeAsync(14_000);
    expect(res.written.filter((text) => text === KEEP_ALIVE)).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1_000 + 15_000);
    expect(res.written.slice(-3)).toEqual(['data: {"n":2}\n\n', KEEP_ALIVE, KEEP_ALIVE]);

    source.end();
    await writing;
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stops once the client is gone', async () => {
    const res = new RecordingResponse();
    const source = controlledEvents();
    const writing = writeEvents(res as unknown as Response, source.events, timers);
    source.push({ n: 1 });
    await jest.advanceTimersByTimeAsync(15_000);

    res.destroy();
    await jest.advanceTimersByTimeAsync(60_000);

    expect(res.written).toEqual(['data: {"n":1}\n\n', KEEP_ALIVE]);
    source.end();
    await writing;
    expect(jest.getTimerCount()).toBe(0);
  });
});
