import { startTavilyFake, tavilyFakeResults, type TavilyFake } from './tavily-fake';

const KEY = 'tvly-fake-key';

let fake: TavilyFake;

beforeAll(async () => {
  fake = await startTavilyFake({ apiKey: KEY });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function post(body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }, path = '/search'): Promise<Response> {
  return fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

const UNAUTHORIZED = { detail: { error: 'Unauthorized: missing or invalid API key.' } };

describe('Tavily fake', () => {
  it('answers a search with deterministic results, five by default', async () => {
    const response = await post({ query: 'rust async' });

    expect(response.status).toBe(200);
    const body = (await response.json()) as { query: string; results: unknown[] };
    expect(body.query).toBe('rust async');
    expect(body.results).toEqual(tavilyFakeResults('rust async'));
    expect(body.results).toHaveLength(5);
  });

  it('honours max_results, zero included', async () => {
    expect(((await (await post({ query: 'q', max_results: 3 })).json()) as { results: unknown[] }).results).toHaveLength(3);
    expect(((await (await post({ query: 'q', max_results: 0 })).json()) as { results: unknown[] }).results).toHaveLength(0);
  });

  it('records the request', async () => {
    await post({ query: 'q' });

    expect(fake.requests).toEqual([expect.objectContaining({ method: 'POST', path: '/search', body: { query: 'q' } })]);
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('plays the script, then the default', async () => {
    fake.script({ kind: 'status', status: 503 });
    fake.setDefault({ kind: 'status', status: 429 });

    expect((await post({ query: 'q' })).status).toBe(503);
    expect((await post({ query: 'q' })).status).toBe(429);
    fake.reset();
    expect((await post({ query: 'q' })).status).toBe(200);
  });

  it('answers a status with Tavily’s error body', async () => {
    fake.script({ kind: 'status', status: 500 });

    expect(await (await post({ query: 'q' })).json()).toEqual({ detail: { error: 'fake tavily error 500' } });
  });

  it('redirects without following anywhere', async () => {
    fake.script({ kind: 'redirect', location: 'http://127.0.0.1:9/elsewhere' });

    const response = await fetch(`${fake.url}/search`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{"query":"q"}', redirect: 'manual' });

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('http://127.0.0.1:9/elsewhere');
  });

  it('sends half a body, or results without title and content', async () => {
    fake.script({ kind: 'malformed' }, { kind: 'missing-fields' });

    await expect((await post({ query: 'q' })).json()).rejects.toThrow();
    const { results } = (await (await post({ query: 'q' })).json()) as { results: Record<string, unknown>[] };
    expect(results).toHaveLength(5);
    expect(results.every((result) => typeof result.url === 'string' && !('title' in result) && !('content' in result))).toBe(true);
  });

  describe('refuses what Tavily refuses', () => {
    it('a missing bearer key with 401', async () => {
      const response = await post({ query: 'q' }, {});

      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(UNAUTHORIZED);
    });

    it('a key other than the configured one with 401', async () => {
      const response = await post({ query: 'q' }, { authorization: 'Bearer tvly-other' });

      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(UNAUTHORIZED);
    });

    it('any key when none is configured, but no key at all', async () => {
      const open = await startTavilyFake();
      try {
        const call = (headers: Record<string, string>): Promise<number> =>
          fetch(`${open.url}/search`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"query":"q"}' }).then((response) => response.status);

        expect(await call({ authorization: 'Bearer anything' })).toBe(200);
        expect(await call({ authorization: 'Bearer ' })).toBe(401);
        expect(await call({ authorization: 'Basic abc' })).toBe(401);
      } finally {
        await open.close();
      }
    });

    it.each([
      ['no query', {}],
      ['an empty query', { query: '  ' }],
      ['a query that is not a string', { query: 42 }],
      ['max_results over 20', { query: 'q', max_results: 21 }],
      ['a negative max_results', { query: 'q', max_results: -1 }],
      ['a fractional max_results', { query: 'q', max_results: 2.5 }],
      ['a max_results string', { query: 'q', max_results: '5' }],
      ['an unknown search_depth', { query: 'q', search_depth: 'deep' }],
      ['a body that is not an object', [1]],
      ['a body that is not JSON', '{"query":'],
    ])('%s with 400', async (_name, body) => {
      const response = await post(body);

      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ detail: { error: expect.any(String) } });
    });

    it('methods other than POST with 405', async () => {
      const response = await fetch(`${fake.url}/search`, { headers: { authorization: `Bearer ${KEY}` } });

      expect(response.status).toBe(405);
    });

    it('other paths with 404', async () => {
      expect((await post({ query: 'q' }, undefined, '/extract')).status).toBe(404);
    });

    it('without playing the script', async () => {
      fake.script({ kind: 'status', status: 500 });

      expect((await post({}, {})).status).toBe(401);
      expect((await post({ query: 'q' })).status).toBe(500);
    });
  });
});
