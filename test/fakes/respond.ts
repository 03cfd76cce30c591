import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Behaviour, ReplyShape } from './behaviour';
import type { Completion } from './completion';
import type { SseEvent, WireFormat } from './wire-format';

/** One request's response side, as a behaviour plays it. */
export interface Exchange {
  response: ServerResponse;
  /** Aborted once the connection closes, whoever closes it: every wait gives up then. */
  closed: AbortSignal;
  /** Closes the connection on purpose, so that the close is not recorded as a client abort. */
  closeByFake(how: 'reset' | 'end'): void;
}

export function sendJson(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

/** Plays `behaviour` as the answer to a chat request already accepted by the wire format. */
export async function play(behaviour: Behaviour, exchange: Exchange, wire: WireFormat, stream: boolean, complete: (shape: ReplyShape) => Completion): Promise<void> {
  const { response, closed } = exchange;
  if (behaviour.kind === 'hang') return;
  if (behaviour.kind === 'reset') return exchange.closeByFake('reset');
  if (behaviour.kind === 'status') {
    const message = behaviour.message ?? `fake ${wire.provider} error ${behaviour.status}`;
    const headers: Record<string, string> = behaviour.retryAfter === undefined ? {} : { 'retry-after': behaviour.retryAfter };
    return sendJson(response, behaviour.status, JSON.stringify(wire.errorBody(behaviour.status, message)), headers);
  }
  if (!(await pause(behaviour.firstByteDelayMs, closed))) return;
  const completion = complete(behaviour);
  if (stream && behaviour.kind !== 'malformed-json') return streamEvents(behaviour, exchange, wire.events(completion), wire.sseLineEnd);
  const body = JSON.stringify(wire.json(completion));
  switch (behaviour.kind) {
    case 'cut-stream':
      // The headers promise the whole body; the connection closes half-way through it.
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.write(firstHalf(body));
      return exchange.closeByFake('end');
    case 'malformed-chunk':
    case 'malformed-json':
      return sendJson(response, 200, firstHalf(body));
    default:
      return sendJson(response, 200, body);
  }
}

async function streamEvents(behaviour: Exclude<Behaviour, { kind: 'hang' | 'reset' | 'status' }>, exchange: Exchange, events: SseEvent[], lineEnd: string): Promise<void> {
  const { response, closed } = exchange;
  if (behaviour.kind === 'missing-done') events.pop();
  if (behaviour.kind === 'malformed-chunk') {
    const middle = Math.floor(events.length / 2);
    events[middle] = { ...events[middle], data: firstHalf(events[middle].data) };
  }
  const sent = behaviour.kind === 'cut-stream' ? events.slice(0, behaviour.afterChunks) : events;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
  for (const event of sent) {
    if (!(await pause(behaviour.chunkDelayMs, closed))) return;
    const name = event.event === undefined ? '' : `event: ${event.event}${lineEnd}`;
    response.write(`${name}data: ${event.data}${lineEnd}${lineEnd}`);
  }
  if (behaviour.kind === 'cut-stream') exchange.closeByFake('end');
  else response.end();
}

/** Waits unless the connection closed meanwhile; says whether it is still worth writing. */
async function pause(ms: number | undefined, closed: AbortSignal): Promise<boolean> {
  if (ms !== undefined && ms > 0) await sleep(ms, undefined, { signal: closed }).catch(() => undefined);
  return !closed.aborted;
}

/** A strict prefix of a JSON object or array is never valid JSON. */
function firstHalf(json: string): string {
  return json.slice(0, Math.ceil(json.length / 2));
}
