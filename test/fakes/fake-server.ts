import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Behaviour } from './behaviour';
import { buildCompletion } from './completion';
import { play, sendJson, type Exchange } from './respond';
import type { FakeRequest, Refusal, WireFormat } from './wire-format';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; the raw text when it was not JSON; undefined until read in full. */
  body: unknown;
  /** What the fake answered with; undefined when it refused the request (API key, route, validation). */
  behaviour?: Behaviour;
  /** Epoch milliseconds. */
  receivedAt: number;
  /** When the exchange was over: response finished, or connection closed by either side. */
  endedAt?: number;
  /** The client closed the connection before the response was complete. */
  aborted: boolean;
  abortedAt?: number;
}

export interface FakeOptions {
  /** Default 0: any free port. */
  port?: number;
  /** When set, only this key is accepted; otherwise any non-empty key. */
  apiKey?: string;
  /** The behaviour once the script is used up; default `{ kind: 'reply' }`. */
  default?: Behaviour;
  /** Default true; benchmarks turn it off so that a long run does not pile up records. */
  record?: boolean;
}

export interface Fake {
  /** Base URL to configure the gateway with: origin plus the version path ('/v1', '/v1beta'). */
  readonly url: string;
  readonly origin: string;
  /** Every request in arrival order, updated as the exchanges go on. */
  readonly requests: readonly RecordedRequest[];
  /** Behaviours for the next requests, one each, in order. */
  script(...behaviours: Behaviour[]): void;
  /** The behaviour for every request after the script. */
  setDefault(behaviour: Behaviour): void;
  /** Forgets the script, the default and the recorded requests. */
  reset(): void;
  /** Resolves once the `index`-th request (from 0) has been read in full, its body recorded. */
  arrived(index: number): Promise<RecordedRequest>;
  /** Resolves once the `index`-th request's exchange is over. */
  ended(index: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export async function startFake(wire: WireFormat, options: FakeOptions = {}): Promise<Fake> {
  const fake = new FakeServer(wire, options);
  await fake.listen(options.port ?? 0);
  return fake;
}

const REPLY: Behaviour = { kind: 'reply' };

class FakeServer implements Fake {
  readonly requests: RecordedRequest[] = [];
  url = '';
  origin = '';
  private queue: Behaviour[] = [];
  private fallback: Behaviour;
  private sequence = 0;
  private closing = false;
  /** Emits 'change' whenever a request is read in full or its exchange ends. */
  private readonly changes = new EventEmitter().setMaxListeners(0);
  private readonly server = createServer((request, response) => this.handle(request, response));

  constructor(
    private readonly wire: WireFormat,
    private readonly options: FakeOptions,
  ) {
    this.fallback = options.default ?? REPLY;
  }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', resolve);
    });
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.url = `${this.origin}${this.wire.versionPath}`;
  }

  script(...behaviours: Behaviour[]): void {
    this.queue.push(...behaviours);
  }

  setDefault(behaviour: Behaviour): void {
    this.fallback = behaviour;
  }

  reset(): void {
    this.queue = [];
    this.fallback = this.options.default ?? REPLY;
    this.requests.length = 0;
  }

  arrived(index: number): Promise<RecordedRequest> {
    return this.when(index, (record) => record.body !== undefined);
  }

  ended(index: number): Promise<RecordedRequest> {
    return this.when(index, (record) => record.endedAt !== undefined);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private handle(incoming: IncomingMessage, response: ServerResponse): void {
    const url = new URL(incoming.url ?? '/', this.origin);
    const record: RecordedRequest = {
      method: incoming.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: incoming.headers,
      body: undefined,
      receivedAt: Date.now(),
      aborted: false,
    };
    if (this.options.record !== false) this.requests.push(record);
    if (this.wire.requestIdHeader) response.setHeader(this.wire.requestIdHeader, `req_${randomBytes(12).toString('hex')}`);

    const closed = new AbortController();
    let closedByFake = false;
    response.on('close', () => {
      const now = Date.now();
      if (!response.writableFinished && !closedByFake && !this.closing) {
        record.aborted = true;
        record.abortedAt = now;
      }
      record.endedAt = now;
      closed.abort();
      this.changes.emit('change');
    });
    const exchange: Exchange = {
      response,
      closed: closed.signal,
      closeByFake: (how) => {
        closedByFake = true;
        if (how === 'reset') response.socket?.resetAndDestroy();
        else response.socket?.end();
      },
    };

    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      this.answer(record, url, Buffer.concat(chunks).toString(), exchange).catch((error: unknown) => {
        process.stderr.write(`fake ${this.wire.provider}: ${String(error)}\n`);
        response.destroy();
      });
    });
  }

  private async answer(record: RecordedRequest, url: URL, rawBody: string, exchange: Exchange): Promise<void> {
    const body = parseJson(rawBody);
    record.body = body ?? rawBody;
    this.changes.emit('change');
    const request: FakeRequest = { method: record.method, path: record.path, query: url.searchParams, headers: record.headers, body: record.body };
    const key = this.wire.credential(request);
    if (!key || (this.options.apiKey !== undefined && key !== this.options.apiKey)) {
      return this.refuse(exchange, { status: this.wire.authFailureStatus, message: 'invalid API key' });
    }
    if (body === undefined && rawBody !== '') return this.refuse(exchange, { status: 400, message: 'the request body is not valid JSON' });
    const chat = this.wire.parse(request);
    if ('status' in chat) return this.refuse(exchange, chat);

    const behaviour = this.queue.shift() ?? this.fallback;
    record.behaviour = behaviour;
    const sequence = ++this.sequence;
    await play(behaviour, exchange, this.wire, chat.stream, (shape) => buildCompletion(this.wire.provider, sequence, chat, shape));
  }

  private when(index: number, ready: (record: RecordedRequest) => boolean): Promise<RecordedRequest> {
    return new Promise((resolve) => {
      const check = (): void => {
        const record = this.requests[index];
        if (record === undefined || !ready(record)) return;
        this.changes.off('change', check);
        resolve(record);
      };
      this.changes.on('change', check);
      check();
    });
  }

  private refuse(exchange: Exchange, refusal: Refusal): void {
    sendJson(exchange.response, refusal.status, JSON.stringify(this.wire.errorBody(refusal.status, refusal.message, refusal.code)));
  }
}

/** Undefined when the text is not JSON (JSON itself has no undefined). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
