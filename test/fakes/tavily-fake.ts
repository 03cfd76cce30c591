import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendJson } from './respond';

/** How the fake answers one accepted search. */
export type TavilyBehaviour =
  /** Results derived from the query, `max_results` of them (default 5). */
  | { kind: 'normal' }
  /** A normal answer after this much silence. */
  | { kind: 'slow'; delayMs: number }
  /** Tavily's error body with this status. */
  | { kind: 'status'; status: number }
  /** Status 200, `application/json`, and the first half of a normal answer. */
  | { kind: 'malformed' }
  /** Results with a url and a score but neither `title` nor `content`. */
  | { kind: 'missing-fields' }
  /** 302 to `location`. */
  | { kind: 'redirect'; location: string }
  /** Status 200 with exactly this JSON, for shapes the other behaviours do not make. */
  | { kind: 'body'; body: unknown };

export interface TavilyFakeOptions {
  /** When set, only this key is accepted; otherwise any non-empty bearer key. */
  apiKey?: string;
  /** The behaviour once the script is used up; default `{ kind: 'normal' }`. */
  default?: TavilyBehaviour;
}

export interface RecordedToolRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; the raw text when it was not JSON. */
  body: unknown;
}

export interface TavilyFake {
  /** Base URL to configure: the origin, to which the adapter adds `/search`. */
  readonly url: string;
  readonly requests: readonly RecordedToolRequest[];
  /** Behaviours for the next accepted requests, one each, in order. */
  script(...behaviours: TavilyBehaviour[]): void;
  setDefault(behaviour: TavilyBehaviour): void;
  /** Forgets the script, the default and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;
const SEARCH_DEPTHS = ['basic', 'advanced', 'fast', 'ultra-fast'];

/** The Tavily search API on 127.0.0.1: `POST /search`, bearer key, refusing what Tavily refuses. */
export async function startTavilyFake(options: TavilyFakeOptions = {}): Promise<TavilyFake> {
  const normal: TavilyBehaviour = options.default ?? { kind: 'normal' };
  const requests: RecordedToolRequest[] = [];
  let queue: TavilyBehaviour[] = [];
  let fallback = normal;

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const record = recordOf(incoming, Buffer.concat(chunks).toString());
      requests.push(record);
      const refusal = refusalOf(record, options.apiKey);
      if (refusal) return sendJson(response, refusal.status, JSON.stringify(refusal.body));
      answer(queue.shift() ?? fallback, record.body as SearchBody, response).catch((error: unknown) => {
        process.stderr.write(`fake tavily: ${String(error)}\n`);
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
      fallback = normal;
      requests.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

interface SearchBody {
  query: string;
  max_results?: number;
}

function recordOf(incoming: IncomingMessage, raw: string): RecordedToolRequest {
  const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
  let body: unknown = raw;
  try {
    body = JSON.parse(raw);
  } catch {
    // Kept as text: the refusal below names it.
  }
  return { method: incoming.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: incoming.headers, body };
}

/** Route, then method, then key, then body: the order in which Tavily's API answers them. */
function refusalOf(request: RecordedToolRequest, apiKey: string | undefined): { status: number; body: unknown } | undefined {
  if (request.path !== '/search') return { status: 404, body: { detail: 'Not Found' } };
  if (request.method !== 'POST') return { status: 405, body: { detail: 'Method Not Allowed' } };
  const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!key || (apiKey !== undefined && key !== apiKey)) return { status: 401, body: errorBody('Unauthorized: missing or invalid API key.') };
  const { body } = request;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { status: 400, body: errorBody('Invalid request body.') };
  const { query, max_results: maxResults, search_depth: depth } = body as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') return { status: 400, body: errorBody('Query is missing.') };
  if (maxResults !== undefined && !(Number.isInteger(maxResults) && (maxResults as number) >= 0 && (maxResults as number) <= MAX_RESULTS)) {
    return { status: 400, body: errorBody(`max_results must be an integer between 0 and ${MAX_RESULTS}.`) };
  }
  if (depth !== undefined && !SEARCH_DEPTHS.includes(depth as string)) return { status: 400, body: errorBody(`Invalid search_depth. Must be one of ${SEARCH_DEPTHS.join(', ')}.`) };
  return undefined;
}

function errorBody(error: string): unknown {
  return { detail: { error } };
}

async function answer(behaviour: TavilyBehaviour, body: SearchBody, response: ServerResponse): Promise<void> {
  switch (behaviour.kind) {
    case 'status':
      return sendJson(response, behaviour.status, JSON.stringify(errorBody(`fake tavily error ${behaviour.status}`)));
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
      return sendJson(response, 200, JSON.stringify(searchAnswer(body)));
    }
    case 'malformed': {
      const json = JSON.stringify(searchAnswer(body));
      return sendJson(response, 200, json.slice(0, Math.ceil(json.length / 2)));
    }
    case 'missing-fields': {
      const answered = searchAnswer(body);
      return sendJson(response, 200, JSON.stringify({ ...answered, results: answered.results.map(({ url, score }) => ({ url, score })) }));
    }
    default:
      return sendJson(response, 200, JSON.stringify(searchAnswer(body)));
  }
}

export interface TavilyResult {
  title: string;
  url: string;
  content: string;
  score: number;
  raw_content: null;
}

/** The results the fake gives `query`: the same every time, so that tests can expect them. */
export function tavilyFakeResults(query: string, count = DEFAULT_RESULTS): TavilyResult[] {
  const slug = encodeURIComponent(query.trim().toLowerCase().replace(/\s+/g, '-'));
  return Array.from({ length: count }, (_, index) => ({
    title: `Result ${index + 1} for ${query}`,
    url: `https://example.com/${slug}/${index + 1}`,
    content: `Fake snippet ${index + 1} about ${query}.`,
    score: Math.round((0.99 - index * 0.04) * 100) / 100,
    raw_content: null,
  }));
}

function searchAnswer(body: SearchBody): { results: TavilyResult[] } & Record<string, unknown> {
  return {
    query: body.query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results: tavilyFakeResults(body.query, body.max_results),
    response_time: 0.01,
    request_id: randomUUID(),
  };
}
