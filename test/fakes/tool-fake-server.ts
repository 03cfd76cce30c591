import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendJson } from './respond';

/** How a tool fake answers one accepted request; each fake says what `normal` and `missing-fields` make. */
export type ToolFakeBehaviour =
  /** The fake's ordinary answer, derived from the request. */
  | { kind: 'normal' }
  /** A normal answer after this much silence. */
  | { kind: 'slow'; delayMs: number }
  /** The upstream's error body with this status. */
  | { kind: 'status'; status: number }
  /** Status 200, `application/json`, and the first half of a normal answer. */
  | { kind: 'malformed' }
  /** A normal answer stripped of the fields the adapter reads. */
  | { kind: 'missing-fields' }
  /** 302 to `location`. */
  | { kind: 'redirect'; location: string }
  /** Status 200 with exactly this JSON, for shapes the other behaviours do not make. */
  | { kind: 'body'; body: unknown };

export interface RecordedToolRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** What the fake's `parseBody` made of the body text. */
  body: unknown;
}

export interface ToolFake<B> {
  /** Base URL to configure: the origin, to which the adapter adds its path. */
  readonly url: string;
  readonly requests: readonly RecordedToolRequest[];
  /** Behaviours for the next accepted requests, one each, in order. */
  script(...behaviours: B[]): void;
  setDefault(behaviour: B): void;
  /** Forgets the script, the default and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export interface ToolFakeServerOptions<B> {
  /** For the fake's log lines. */
  name: string;
  /** The behaviour once the script is used up, and again after `reset`. */
  default: B;
  /** Turns the body text into what is recorded. */
  parseBody(raw: string): unknown;
  /** What the upstream refuses before any behaviour applies: such a request takes none from the script. */
  refuse(request: RecordedToolRequest): { status: number; body: unknown } | undefined;
  answer(behaviour: B, request: RecordedToolRequest, response: ServerResponse): Promise<void>;
}

/** A small HTTP server on 127.0.0.1 that records every request and plays scripted behaviours. */
export async function startToolFakeServer<B>(options: ToolFakeServerOptions<B>): Promise<ToolFake<B>> {
  const requests: RecordedToolRequest[] = [];
  let queue: B[] = [];
  let fallback = options.default;

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const record = recordOf(incoming, options.parseBody(Buffer.concat(chunks).toString()));
      requests.push(record);
      const refusal = options.refuse(record);
      if (refusal) return sendJson(response, refusal.status, JSON.stringify(refusal.body));
      options.answer(queue.shift() ?? fallback, record, response).catch((error: unknown) => {
        process.stderr.write(`fake ${options.name}: ${String(error)}\n`);
        response.destroy();
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script: (...behaviours) => void queue.push(...behaviours),
    setDefault: (behaviour) => void (fallback = behaviour),
    reset: () => {
      queue = [];
      fallback = options.default;
      requests.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

function recordOf(incoming: IncomingMessage, body: unknown): RecordedToolRequest {
  const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
  return { method: incoming.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: incoming.headers, body };
}

/** The answers a behaviour needs from its fake. */
export interface ToolFakeAnswers {
  normal(): unknown;
  missingFields(): unknown;
  error(status: number): unknown;
}

/** Plays one behaviour; `slow` gives up quietly when the client hangs up first. */
export async function playToolBehaviour(behaviour: ToolFakeBehaviour, response: ServerResponse, answers: ToolFakeAnswers): Promise<void> {
  switch (behaviour.kind) {
    case 'status':
      return sendJson(response, behaviour.status, JSON.stringify(answers.error(behaviour.status)));
    case 'redirect':
      response.writeHead(302, { location: behaviour.location, 'content-length': 0 });
      return void response.end();
    case 'body':
      return sendJson(response, 200, JSON.stringify(behaviour.body));
    case 'slow': {
      const closed = new AbortController();
      response.on('close', () => closed.abort());
      await sleep(behaviour.delayMs, undefined, { signal: closed.signal }).catch(() => undefined);
      if (closed.signal.aborted) return;
      return sendJson(response, 200, JSON.stringify(answers.normal()));
    }
    case 'malformed': {
      const json = JSON.stringify(answers.normal());
      return sendJson(response, 200, json.slice(0, Math.ceil(json.length / 2)));
    }
    case 'missing-fields':
      return sendJson(response, 200, JSON.stringify(answers.missingFields()));
    default:
      return sendJson(response, 200, JSON.stringify(answers.normal()));
  }
}
