import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Secret } from '../../config/secret';
import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';
import { startTavilyFake, tavilyFakeResults, type TavilyBehaviour, type TavilyFake } from '../../../test/fakes/tavily-fake';
import { TavilyWebSearch } from './tavily-web-search';

const KEY = 'tvly-secret-key-0123456789';

let fake: TavilyFake;
let search: TavilyWebSearch;

beforeAll(async () => {
  fake = await startTavilyFake({ apiKey: KEY });
  search = adapter();
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function adapter(options: { apiKey?: Secret | null; timeoutMs?: number; baseUrl?: string } = {}): TavilyWebSearch {
  return new TavilyWebSearch({ baseUrl: options.baseUrl ?? fake.url, apiKey: options.apiKey === undefined ? new Secret(KEY) : options.apiKey, timeoutMs: options.timeoutMs ?? 5000 });
}

function run(client = search, maxResults?: number): Promise<unknown> {
  return client.search('solana validators', maxResults, new AbortController().signal);
}

async function failure(promise: Promise<unknown>): Promise<ToolUpstreamError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ToolUpstreamError);
  expect((error as Error).message).not.toContain(KEY);
  return error as ToolUpstreamError;
}

describe('TavilyWebSearch', () => {
  it('is configured only with a key', () => {
    expect(search.provider).toBe('tavily');
    expect(search.configured).toBe(true);
    expect(adapter({ apiKey: null }).configured).toBe(false);
  });

  it('maps results to title, url and snippet', async () => {
    const results = await run();

    expect(results).toEqual(tavilyFakeResults('solana validators').map(({ title, url, content }) => ({ title, url, snippet: content })));
    expect(results).toHaveLength(5);
  });

  it('posts the query with a bearer key and basic depth, leaving max_results out when not given', async () => {
    await run();

    expect(fake.requests).toEqual([expect.objectContaining({ method: 'POST', path: '/search' })]);
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.requests[0].headers['content-type']).toBe('application/json');
    expect(fake.requests[0].body).toEqual({ query: 'solana validators', search_depth: 'basic' });
  });

  it('sends max_results when given, and the fake honours it', async () => {
    const results = await run(search, 2);

    expect(fake.requests[0].body).toEqual({ query: 'solana validators', search_depth: 'basic', max_results: 2 });
    expect(results).toHaveLength(2);
  });

  it('tolerates a trailing slash on the base URL', async () => {
    await run(adapter({ baseUrl: `${fake.url}/` }));

    expect(fake.requests[0].path).toBe('/search');
  });

  it('coerces a missing title and content to empty strings', async () => {
    fake.script({ kind: 'missing-fields' });

    const results = await run();

    expect(results).toEqual(tavilyFakeResults('solana validators').map(({ url }) => ({ title: '', url, snippet: '' })));
  });

  it('skips result items without a string url', async () => {
    fake.script({ kind: 'body', body: { results: [{ title: 'a', content: 'b' }, { url: 42 }, null, 'x', { url: 'https://example.com/ok', title: 7, content: 'c' }] } });

    expect(await run()).toEqual([{ title: '', url: 'https://example.com/ok', snippet: 'c' }]);
  });

  it.each<[string, ToolUpstreamError['kind'], TavilyBehaviour, RegExp]>([
    ['a 500', 'status', { kind: 'status', status: 500 }, /^tavily answered 500$/],
    ['a 429', 'status', { kind: 'status', status: 429 }, /^tavily answered 429$/],
    ['half a JSON body', 'malformed', { kind: 'malformed' }, /not JSON/],
    ['results that are not an array', 'malformed', { kind: 'body', body: { results: {} } }, /no results array/],
    ['a body that is not an object', 'malformed', { kind: 'body', body: [1, 2] }, /no results array/],
  ])('turns %s into a %s error', async (_name, kind, behaviour, message) => {
    fake.script(behaviour);

    const error = await failure(run());

    expect(error.kind).toBe(kind);
    expect(error.message).toMatch(message);
  });

  it('answers the fake refusing the key with a status error', async () => {
    const error = await failure(run(adapter({ apiKey: new Secret('tvly-wrong-key-000000') })));

    expect(error).toMatchObject({ kind: 'status', message: 'tavily answered 401' });
  });

  it('does not follow a redirect, which would carry the key elsewhere', async () => {
    const elsewhere = await startTavilyFake();
    try {
      fake.script({ kind: 'redirect', location: `${elsewhere.url}/search` });

      const error = await failure(run());

      expect(error).toMatchObject({ kind: 'network', message: 'tavily: request failed (unexpected redirect)' });
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('times out on a slow upstream', async () => {
    fake.script({ kind: 'slow', delayMs: 2000 });
    const started = Date.now();

    const error = await failure(run(adapter({ timeoutMs: 200 })));

    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("passes the caller's abort through unchanged", async () => {
    fake.script({ kind: 'slow', delayMs: 2000 });
    const controller = new AbortController();
    const reason = new Error('client went away');
    setTimeout(() => controller.abort(reason), 50);

    await expect(search.search('q', undefined, controller.signal)).rejects.toBe(reason);
  });

  it('is a network error when nothing listens', async () => {
    const closed = await startTavilyFake();
    await closed.close();

    const error = await failure(run(adapter({ baseUrl: closed.url })));

    expect(error).toMatchObject({ kind: 'network', message: 'tavily: request failed (ECONNREFUSED)' });
  });

  it('keeps the key out of the message when fetch refuses it as a header value', async () => {
    const bad = 'tvly-bad\nkey-0123456789';

    const error = await failure(run(adapter({ apiKey: new Secret(bad) })));

    expect(error.kind).toBe('network');
    expect(error.message).toContain('invalid header value');
    expect(error.message).not.toContain('tvly-bad');
    expect(error.message).not.toContain('key-0123456789');
  });

  it('refuses to search without a key', async () => {
    const error = await failure(run(adapter({ apiKey: null })));

    expect(error.kind).toBe('status');
    expect(fake.requests).toHaveLength(0);
  });

  describe('against an oversized body', () => {
    let server: Server;
    let url: string;

    beforeAll(async () => {
      // Streams 2 MiB of a valid-looking answer without a content-length.
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
      const error = await failure(run(adapter({ baseUrl: url })));

      expect(error).toMatchObject({ kind: 'malformed', message: expect.stringContaining('over 1048576 bytes') });
    });
  });
});
