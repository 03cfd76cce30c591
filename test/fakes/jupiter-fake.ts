import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import bs58 from 'bs58';
import { sendJson } from './respond';

/** How the fake answers one accepted price request. */
export type JupiterBehaviour =
  /** A price for every requested mint but the unknown ones, derived from the mint. */
  | { kind: 'normal' }
  /** A normal answer after this much silence. */
  | { kind: 'slow'; delayMs: number }
  /** An error body with this status. */
  | { kind: 'status'; status: number }
  /** Status 200, `application/json`, and the first half of a normal answer. */
  | { kind: 'malformed' }
  /** Entries without `usdPrice`. */
  | { kind: 'missing-fields' }
  /** 302 to `location`. */
  | { kind: 'redirect'; location: string }
  /** Status 200 with exactly this JSON, for shapes the other behaviours do not make. */
  | { kind: 'body'; body: unknown };

export interface JupiterFakeOptions {
  /** Mints left out of every answer, as Jupiter leaves out the mints it cannot price. */
  unknown?: readonly string[];
  /** The behaviour once the script is used up; default `{ kind: 'normal' }`. */
  default?: JupiterBehaviour;
}

export interface RecordedPriceRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The raw body text ('' for a GET). */
  body: unknown;
}

export interface JupiterFake {
  /** Base URL to configure: the origin, to which the adapter adds `/price/v3`. */
  readonly url: string;
  readonly requests: readonly RecordedPriceRequest[];
  /** Behaviours for the next accepted requests, one each, in order. */
  script(...behaviours: JupiterBehaviour[]): void;
  setDefault(behaviour: JupiterBehaviour): void;
  /** Forgets the script, the default and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** Jupiter prices at most this many mints per request. */
const MAX_IDS = 50;

/** The Jupiter Price API v3 on 127.0.0.1: `GET /price/v3?ids=`, refusing what Jupiter refuses. */
export async function startJupiterFake(options: JupiterFakeOptions = {}): Promise<JupiterFake> {
  const normal: JupiterBehaviour = options.default ?? { kind: 'normal' };
  const unknown = new Set(options.unknown ?? []);
  const requests: RecordedPriceRequest[] = [];
  let queue: JupiterBehaviour[] = [];
  let fallback = normal;

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const record = recordOf(incoming, Buffer.concat(chunks).toString());
      requests.push(record);
      const ids = record.query.ids?.split(',') ?? [];
      const refusal = refusalOf(record, ids);
      if (refusal) return sendJson(response, refusal.status, JSON.stringify(errorBody(refusal.message)));
      const known = ids.filter((id) => !unknown.has(id));
      answer(queue.shift() ?? fallback, known, response).catch((error: unknown) => {
        process.stderr.write(`fake jupiter: ${String(error)}\n`);
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

function recordOf(incoming: IncomingMessage, body: string): RecordedPriceRequest {
  const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
  return { method: incoming.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: incoming.headers, body };
}

function refusalOf(request: RecordedPriceRequest, ids: readonly string[]): { status: number; message: string } | undefined {
  if (request.path !== '/price/v3') return { status: 404, message: 'Not Found' };
  if (request.method !== 'GET') return { status: 405, message: 'Method Not Allowed' };
  if (ids.length === 0 || request.query.ids === '') return { status: 400, message: 'Query parameter ids is required' };
  if (ids.length > MAX_IDS) return { status: 400, message: `At most ${MAX_IDS} ids per request` };
  const invalid = ids.find((id) => !isMint(id));
  if (invalid !== undefined) return { status: 400, message: `Invalid id: ${invalid}` };
  return undefined;
}

/** A mint is a public key: 32 bytes in base58. */
function isMint(id: string): boolean {
  try {
    return bs58.decode(id).length === 32;
  } catch {
    return false;
  }
}

function errorBody(error: string): unknown {
  return { error };
}

async function answer(behaviour: JupiterBehaviour, ids: readonly string[], response: ServerResponse): Promise<void> {
  switch (behaviour.kind) {
    case 'status':
      return sendJson(response, behaviour.status, JSON.stringify(errorBody(`fake jupiter error ${behaviour.status}`)));
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
      return sendJson(response, 200, JSON.stringify(priceAnswer(ids)));
    }
    case 'malformed': {
      const json = JSON.stringify(priceAnswer(ids));
      return sendJson(response, 200, json.slice(0, Math.ceil(json.length / 2)));
    }
    case 'missing-fields': {
      const entries = Object.entries(priceAnswer(ids)).map(([id, entry]) => [id, { ...entry, usdPrice: undefined }]);
      return sendJson(response, 200, JSON.stringify(Object.fromEntries(entries)));
    }
    default:
      return sendJson(response, 200, JSON.stringify(priceAnswer(ids)));
  }
}

export interface JupiterPriceEntry {
  createdAt: string;
  liquidity: number;
  usdPrice: number;
  blockId: number;
  decimals: number;
  priceChange24h: number;
}

/** The entry the fake gives `mint`: the same every time, so that tests can expect it. */
export function jupiterFakePrice(mint: string): JupiterPriceEntry {
  const hash = createHash('sha256').update(mint).digest();
  return {
    createdAt: '2024-06-05T08:55:25.527Z',
    liquidity: hash.readUInt32BE(0) / 100,
    usdPrice: (hash.readUInt32BE(4) % 1_000_000) / 1000 + 0.001,
    blockId: 348_000_000 + (hash.readUInt32BE(8) % 100_000),
    decimals: hash[12] % 10,
    priceChange24h: ((hash.readUInt16BE(13) % 2001) - 1000) / 100,
  };
}

function priceAnswer(ids: readonly string[]): Record<string, JupiterPriceEntry> {
  return Object.fromEntries(ids.map((id) => [id, jupiterFakePrice(id)]));
}
