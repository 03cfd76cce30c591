import { Secret } from '../../config/secret';
import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';
import { startTavilyFake, tavilyFakeResults, type TavilyFake } from '../../../test/fakes/tavily-fake';
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

function adapter(options: { apiKey?: Secret | null; baseUrl?: string } = {}): TavilyWebSearch {
  return new TavilyWebSearch({ baseUrl: options.baseUrl ?? fake.url, apiKey: options.apiKey === undefined ? new Secret(KEY) : options.apiKey, timeoutMs: 5000 });
}

function run(client = search, maxResults?: number): Promise<unknown> {
  return client.search('solana validators', maxResults, new AbortController().signal);
}

/** Faults common to the tool adapters are in tool-upstream-faults.spec.ts. */
// Faults every tool adapter must meet alike are in tool-upstream-faults.spec.ts.
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

  it('answers the fake refusing the key with a status error', async () => {
    const error = await run(adapter({ apiKey: new Secret('tvly-wrong-key-000000') })).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ToolUpstreamError);
    expect(error).toMatchObject({ kind: 'status', message: 'tavily answered 401' });
  });

  it('keeps the key out of the message when fetch refuses it as a header value', async () => {
    const bad = 'tvly-bad\nkey-0123456789';

    const error = await run(adapter({ apiKey: new Secret(bad) })).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ToolUpstreamError);
    expect(error).toMatchObject({ kind: 'network', message: expect.stringContaining('invalid header value') });
    expect((error as Error).message).not.toContain('tvly-bad');
    expect((error as Error).message).not.toContain('key-0123456789');
  });

  it('refuses to search without a key', async () => {
    const error = await run(adapter({ apiKey: null })).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ToolUpstreamError);
    expect(error).toMatchObject({ kind: 'status', message: expect.not.stringContaining(KEY) });
    expect(fake.requests).toHaveLength(0);
  });
});
