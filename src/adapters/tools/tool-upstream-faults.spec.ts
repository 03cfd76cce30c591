import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Secret } from '../../config/secret';
import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';
import { startJupiterFake } from '../../../test/fakes/jupiter-fake';
import { startTavilyFake } from '../../../test/fakes/tavily-fake';
import type { ToolFake, ToolFakeBehaviour } from '../../../test/fakes/tool-fake-server';
import { JupiterTokenPrices } from './jupiter-token-prices';
import { TavilyWebSearch } from './tavily-web-search';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const TAVILY_KEY = 'tvly-secret-key-0123456789';

/** One adapter, as these faults see it: the upstream's fake and a single call against a base URL. */
interface Subject {
  name: string;
  start(): Promise<ToolFake<ToolFakeBehaviour>>;
  call(baseUrl: string, timeoutMs: number, signal: AbortSignal): Promise<unknown>;
  /** The adapter's path, for a redirect to another fake. */
  path: string;
  /** Must never show in a message. */
  secret?: string;
  /** Answers that are JSON but not what this adapter reads. */
  unreadable: [string, unknown, RegExp][];
}

const SUBJECTS: Subject[] = [
  {
    name: 'jupiter',
    start: () => startJupiterFake(),
    call: (baseUrl, timeoutMs, signal) => new JupiterTokenPrices({ baseUrl, timeoutMs }).prices([SOL, USDC], signal),
    path: `/price/v3?ids=${SOL}`,
    unreadable: [
      ['an array', [], /no object of prices/],
      ['null', null, /no object of prices/],
    ],
  },
  {
    name: 'tavily',
    start: () => startTavilyFake({ apiKey: TAVILY_KEY }),
    call: (baseUrl, timeoutMs, signal) => new TavilyWebSearch({ baseUrl, apiKey: new Secret(TAVILY_KEY), timeoutMs }).search('solana validators', undefined, signal),
    path: '/search',
    secret: TAVILY_KEY,
    unreadable: [
      ['results that are not an array', { results: {} }, /no results array/],
      ['a body that is not an object', [1, 2], /no results array/],
    ],
  },
];

describe.each(SUBJECTS)('the $name adapter against a faulty upstream', (subject) => {
  const { name } = subject;
  let fake: ToolFake<ToolFakeBehaviour>;

  beforeAll(async () => {
    fake = await subject.start();
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.close());

  function run(options: { baseUrl?: string; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<unknown> {
    return subject.call(options.baseUrl ?? fake.url, options.timeoutMs ?? 5000, options.signal ?? new AbortController().signal);
  }

  async function failure(promise: Promise<unknown>): Promise<ToolUpstreamError> {
    const error = await promise.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ToolUpstreamError);
    if (subject.secret !== undefined) expect((error as Error).message).not.toContain(subject.secret);
    return error as ToolUpstreamError;
  }

  it.each<[string, ToolUpstreamError['kind'], ToolFakeBehaviour, RegExp]>([
    ['a 500', 'status', { kind: 'status', status: 500 }, new RegExp(`^${name} answered 500$`)],
    ['a 429', 'status', { kind: 'status', status: 429 }, new RegExp(`^${name} answered 429$`)],
    ['half a JSON body', 'malformed', { kind: 'malformed' }, /not JSON/],
    ...subject.unreadable.map(([what, body, message]): [string, ToolUpstreamError['kind'], ToolFakeBehaviour, RegExp] => [what, 'malformed', { kind: 'body', body }, message]),
  ])('turns %s into a %s error', async (_what, kind, behaviour, message) => {
    fake.script(behaviour);

    const error = await failure(run());

    expect(error.kind).toBe(kind);
    expect(error.message).toMatch(message);
  });

  it('does not follow a redirect, which could carry a key elsewhere', async () => {
    const elsewhere = await subject.start();
    try {
      fake.script({ kind: 'redirect', location: `${elsewhere.url}${subject.path}` });

      const error = await failure(run());

      expect(error).toMatchObject({ kind: 'network', message: `${name}: request failed (unexpected redirect)` });
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('times out on a slow upstream', async () => {
    fake.script({ kind: 'slow', delayMs: 2000 });
    const started = Date.now();

    const error = await failure(run({ timeoutMs: 200 }));

    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("passes the caller's abort through unchanged", async () => {
    fake.script({ kind: 'slow', delayMs: 2000 });
    const controller = new AbortController();
    const reason = new Error('client went away');
    setTimeout(() => controller.abort(reason), 50);

    await expect(run({ signal: controller.signal })).rejects.toBe(reason);
  });

  it('is a network error when nothing listens', async () => {
    const closed = await subject.start();
    await closed.close();

    const error = await failure(run({ baseUrl: closed.url }));

    expect(error).toMatchObject({ kind: 'network', message: `${name}: request failed (ECONNREFUSED)` });
  });

  describe('against an oversized body', () => {
    let server: Server;
    let url: string;

    beforeAll(async () => {
      // Streams 2 MiB of an answer both adapters would read, without a content-length.
      server = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"results":[],"padding":"');
        for (let i = 0; i < 32; i++) response.write('x'.repeat(64 * 1024));
        response.end('"}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('stops reading past 1 MiB and calls it malformed', async () => {
      const error = await failure(run({ baseUrl: url }));

      expect(error).toMatchObject({ kind: 'malformed', message: expect.stringContaining('over 1048576 bytes') });
    });
  });
});
