import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { InFlightRequests } from './in-flight-requests';

class FakeResponse extends EventEmitter {
  headersSent = false;
  readonly headers = new Map<string, string>();
  setHeader(name: string, value: string): void {
    this.headers.set(name, value);
  }
}

const response = (): FakeResponse & Response => new FakeResponse() as FakeResponse & Response;

describe('InFlightRequests', () => {
  it('refuses slots past the limit, tracks requests without a slot, and frees a slot when a response closes', () => {
    const inFlight = new InFlightRequests();
    const first = response();
    expect(inFlight.occupy(first, 2)).toBe(true);
    expect(inFlight.occupy(response(), 2)).toBe(true);
    expect(inFlight.occupy(response(), 2)).toBe(false);
    inFlight.track(response());
    first.emit('close');
    expect(inFlight.occupy(response(), 2)).toBe(true);
  });

  it('drains once every tracked response closed, asking unanswered ones to close their connection', async () => {
    const inFlight = new InFlightRequests();
    const answered = response();
    answered.headersSent = true;
    const waiting = response();
    inFlight.track(answered);
    inFlight.track(waiting);
    const drained = inFlight.drain(1000);
    expect(inFlight.draining).toBe(true);
    expect(waiting.headers.get('Connection')).toBe('close');
    expect(answered.headers.has('Connection')).toBe(false);
    answered.emit('close');
    waiting.emit('close');
    expect(await drained).toBe(true);
  });

  it('reports a drain that timed out', async () => {
    const inFlight = new InFlightRequests();
    inFlight.track(response());
    expect(await inFlight.drain(20)).toBe(false);
  });

  it('drains at once when idle', async () => {
    expect(await new InFlightRequests().drain(1000)).toBe(true);
  });
});
