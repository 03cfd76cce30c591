import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';

/**
 * Which calls a mode touches. `methods` unset means every method; a call matches when any method of
 * its body (a JSON-RPC batch counts each) is listed and, with `when`, when `when` holds for that
 * call's `params` (e.g. a sendTransaction whose decoded transaction has a given fee payer).
 */
export interface RpcCallFilter {
  methods?: string[];
  when?: (params: unknown) => boolean;
}

/** What the proxy does to the JSON-RPC calls it sees (the matching ones: see RpcCallFilter). */
export type RpcFaultMode =
  | { kind: 'pass' }
  /** Matching calls wait `delayMs`, then are forwarded. */
  | ({ kind: 'slow'; delayMs: number } & RpcCallFilter)
  /** Every `every`-th matching call (counted from this mode's start) answers HTTP 503 and is not forwarded. */
  | ({ kind: 'flaky'; every: number } & RpcCallFilter)
  /**
   * Matching calls are held unanswered. On a switch to any other mode the held calls are forwarded
   * (so they answer late, as an RPC node that stalled and recovered); on close they are destroyed.
   */
  | ({ kind: 'silent' } & RpcCallFilter)
  /**
   * Matching calls are answered, without being forwarded, with a JSON-RPC error (HTTP 200, one per
   * call of a batch): a node refusing the call itself, an RPC failure rather than a program error.
   * Default error: -32005, "Node is unhealthy".
   */
  | ({ kind: 'fail'; error?: { code: number; message: string } } & RpcCallFilter)
  /**
   * `sendTransaction` is forwarded with `skipPreflight: true`, whatever the caller asked: a node
   * whose preflight ran against older state, so a transfer the payer emptied its account for lands
   * with an error and its fee is paid.
   */
  | { kind: 'no-preflight' }
  /**
   * Matching `sendTransaction` calls are answered at once with the transaction's signature, as a
   * node that took it, but are not forwarded yet. On a switch to any other mode they are forwarded
   * one after another in the order they came, each once the one before was answered: transactions a
   * node accepted and propagated late. Their late answers go nowhere.
   */
  | ({ kind: 'accept-late' } & RpcCallFilter)
  /**
   * Every single call (not a batch) goes to `handle` first, which may do something else meanwhile
   * (land a transaction it held, say) and then forward the call or answer it with `result`.
   */
  | { kind: 'hook'; handle: (call: { method: string; params: unknown }) => Promise<RpcDecision> | RpcDecision };

/** What a `hook` mode does with a call. */
export type RpcDecision = { kind: 'forward' } | { kind: 'answer'; result: unknown };

export interface RpcFaultProxy {
  /** The proxy's JSON-RPC URL, to use in place of the target's (e.g. as GW_SOLANA_RPC_URL). */
  url: string;
  /** Switches the mode for calls arriving from now on (and releases calls held by 'silent'). */
  mode(mode: RpcFaultMode): void;
  /** How many JSON-RPC calls of `method` (of any method when unset) arrived, whatever became of them. */
  calls(method?: string): number;
  close(): Promise<void>;
}

interface Held {
  req: IncomingMessage;
  res: ServerResponse;
  body: Buffer;
}

/**
 * An HTTP JSON-RPC proxy in front of a Solana RPC URL (the localnet's `url`) that slows, fails or
 * swallows chosen methods. Only HTTP is proxied: the gateway polls signature statuses over HTTP and
 * opens no websocket subscription (src/adapters/solana), so the websocket at port + 1 is not needed.
 */
export async function startRpcFaultProxy(targetUrl: string): Promise<RpcFaultProxy> {
  const target = new URL(targetUrl);
  let current: RpcFaultMode = { kind: 'pass' };
  let matchingSinceMode = 0;
  const counts = new Map<string, number>();
  let total = 0;
  const held = new Set<Held>();
  let late: Buffer[] = [];
  let forwardingLate: Promise<void> = Promise.resolve();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let closing = false;
  const agent = new Agent({ keepAlive: true });

  const forward = ({ req, res, body }: Held): void => {
    if (res.destroyed || res.writableEnded) return;
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname.replace(/\/$/, '')}${req.url ?? '/'}`,
        method: req.method,
        agent,
        headers: { ...withoutHopByHop(req.headers), host: target.host, 'content-length': String(body.length) },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy(); // the caller gave up (or the proxy closed)
    });
    upstream.end(body);
  };

  /** Sends `body` to the target and waits for its answer, which nobody reads. */
  const post = (body: Buffer): Promise<void> =>
    new Promise((resolve) => {
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(body.length) } },
        (answer) => {
          answer.resume();
          answer.on('end', resolve);
          answer.on('error', () => resolve());
        },
      );
      upstream.on('error', () => resolve());
      upstream.end(body);
    });

  const matches = (mode: RpcFaultMode, calls: RpcCall[]): boolean => {
    if (mode.kind === 'pass') return false;
    if (mode.kind === 'no-preflight') return calls.some((call) => call.method === 'sendTransaction');
    if (mode.kind === 'accept-late') return calls.some((call) => call.method === 'sendTransaction' && (mode.when === undefined || holds(mode.when, call.params)));
    if (mode.kind === 'hook') return calls.length === 1;
    return calls.some((call) => (mode.methods === undefined || mode.methods.includes(call.method)) && (mode.when === undefined || holds(mode.when, call.params)));
  };

  const handle = (call: Held): void => {
    const calls = rpcCalls(call.body);
    for (const { method } of calls) counts.set(method, (counts.get(method) ?? 0) + 1);
    total += calls.length;
    const mode = current;
    // Anything that is not a JSON-RPC call (GET /health) passes untouched.
    if (calls.length === 0 || !matches(mode, calls)) return forward(call);
    switch (mode.kind) {
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          forward(call);
        }, mode.delayMs);
        timers.add(timer);
        return;
      }
      case 'flaky':
        matchingSinceMode += 1;
        if (matchingSinceMode % Math.max(1, mode.every) === 0) {
          call.res.writeHead(503, { 'content-type': 'text/plain' });
          call.res.end('Service Unavailable');
          return;
        }
        return forward(call);
      case 'silent':
        held.add(call);
        call.res.on('close', () => held.delete(call));
        return;
      case 'no-preflight':
        return forward({ ...call, body: withoutPreflight(call.body) });
      case 'hook': {
        if (isBatch(call.body)) return forward(call);
        const [only] = calls;
        void Promise.resolve(mode.handle({ method: only.method, params: only.params })).then(
          (decision) => {
            if (decision.kind === 'forward') return forward(call);
            call.res.writeHead(200, { 'content-type': 'application/json' });
            call.res.end(JSON.stringify({ jsonrpc: '2.0', id: only.id, result: decision.result }));
          },
          () => call.res.destroy(),
        );
        return;
      }
      case 'accept-late': {
        late.push(call.body);
        const answers = calls.map(({ id, params }) => ({ jsonrpc: '2.0', id, result: transactionSignature(params) }));
        call.res.writeHead(200, { 'content-type': 'application/json' });
        call.res.end(JSON.stringify(isBatch(call.body) ? answers : answers[0]));
        return;
      }
      case 'fail': {
        const error = mode.error ?? { code: -32005, message: 'Node is unhealthy' };
        const answers = calls.map(({ id }) => ({ jsonrpc: '2.0', id, error }));
        call.res.writeHead(200, { 'content-type': 'application/json' });
        call.res.end(JSON.stringify(isBatch(call.body) ? answers : answers[0]));
        return;
      }
      default:
        return forward(call);
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => handle({ req, res, body: Buffer.concat(chunks) }));
  });
  // As the local chain's server (libs/solana-localnet/localnet-server.ts): idle connections are left
  // to their clients to close, so none is dropped under a gateway reusing it (a 402
  // payment.chain_unreachable under load); close() destroys whatever is still open.
  server.keepAliveTimeout = 0;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    mode: (mode) => {
      if (closing) return;
      current = mode;
      matchingSinceMode = 0;
      const released = [...held];
      held.clear();
      released.forEach(forward);
      const accepted = late;
      late = [];
      for (const body of accepted) forwardingLate = forwardingLate.then(() => (closing ? undefined : post(body)));
    },
    calls: (method) => (method === undefined ? total : (counts.get(method) ?? 0)),
    close: async () => {
      closing = true;
      timers.forEach(clearTimeout);
      timers.clear();
      held.forEach(({ res }) => res.destroy());
      held.clear();
      sockets.forEach((socket) => socket.destroy());
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a node answers to sendTransaction: the transaction's first signature, base58. */
function transactionSignature(params: unknown): string {
  const [encoded, options] = params as [string, { encoding?: string }?];
  const bytes = options?.encoding === 'base64' ? Buffer.from(encoded, 'base64') : Buffer.from(bs58.decode(encoded));
  return bs58.encode(VersionedTransaction.deserialize(bytes).signatures[0]);
}

/** A sendTransaction body (one call, not a batch: what web3.js sends) with its preflight turned off. */
function withoutPreflight(body: Buffer): Buffer {
  const call = JSON.parse(body.toString('utf8')) as { params: [string, Record<string, unknown>?] };
  call.params[1] = { ...call.params[1], skipPreflight: true };
  return Buffer.from(JSON.stringify(call));
}

/** A predicate that throws (params it cannot decode) does not match: the call passes as any other. */
function holds(when: (params: unknown) => boolean, params: unknown): boolean {
  try {
    return when(params);
  } catch {
    return false;
  }
}

interface RpcCall {
  id: unknown;
  method: string;
  params: unknown;
}

function parseBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function isBatch(body: Buffer): boolean {
  return Array.isArray(parseBody(body));
}

/** The calls of a JSON-RPC body, one per call of a batch; a body that is not JSON-RPC has none. */
function rpcCalls(body: Buffer): RpcCall[] {
  const parsed = parseBody(body);
  if (parsed === undefined) return [];
  const calls: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  return calls.flatMap((call) => {
    if (call === null || typeof call !== 'object') return [];
    const { id, method, params } = call as { id?: unknown; method?: unknown; params?: unknown };
    return typeof method === 'string' ? [{ id: id ?? null, method, params }] : [];
  });
}

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { connection: _connection, 'keep-alive': _keepAlive, 'transfer-encoding': _transferEncoding, ...rest } = headers;
  return rest;
}
