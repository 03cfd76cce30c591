import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';
import type { TokenPrice } from '../../modules/tools/ports/token-prices';
import { jupiterFakePrice, startJupiterFake, type JupiterBehaviour, type JupiterFake } from '../../../test/fakes/jupiter-fake';
import { JupiterTokenPrices } from './jupiter-token-prices';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** Jupiter has no price for it, in the fake's configuration. */
const UNPRICED = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';

let fake: JupiterFake;
let prices: JupiterTokenPrices;

beforeAll(async () => {
  fake = await startJupiterFake({ unknown: [UNPRICED] });
  prices = adapter();
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function adapter(options: { timeoutMs?: number; baseUrl?: string } = {}): JupiterTokenPrices {
  return new JupiterTokenPrices({ baseUrl: options.baseUrl ?? fake.url, timeoutMs: options.timeoutMs ?? 5000 });
}

function run(client = prices, mints: readonly string[] = [SOL, USDC]): Promise<ReadonlyMap<string, TokenPrice>> {
  return client.prices(mints, new AbortController().signal);
}

function expected(mint: string): TokenPrice {
  const { usdPrice, decimals, blockId, priceChange24h } = jupiterFakePrice(mint);
  return { usdPrice, decimals, blockId, priceChange24h };
}

async function failure(promise: Promise<unknown>): Promise<ToolUpstreamError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ToolUpstreamError);
  return error as ToolUpstreamError;
}

describe('JupiterTokenPrices', () => {
  it('maps each priced mint and leaves the unpriced ones out', async () => {
    const answer = await run(prices, [SOL, UNPRICED, USDC]);

    expect(prices.provider).toBe('jupiter');
    expect([...answer.entries()]).toEqual([
      [SOL, expected(SOL)],
      [USDC, expected(USDC)],
    ]);
  });

  it('asks GET /price/v3 with the mints comma-joined and no key', async () => {
    await run();

    expect(fake.requests).toEqual([expect.objectContaining({ method: 'GET', path: '/price/v3', query: { ids: `${SOL},${USDC}` } })]);
    expect(fake.requests[0].headers.authorization).toBeUndefined();
    expect(fake.requests[0].headers['x-api-key']).toBeUndefined();
  });

  it('answers no mints without a call', async () => {
    expect((await run(prices, [])).size).toBe(0);
    expect(fake.requests).toHaveLength(0);
  });

  it('treats entries without a usdPrice as absent', async () => {
    fake.script({ kind: 'missing-fields' });

    expect((await run()).size).toBe(0);
  });

  it('keeps only positive finite prices, and nulls the optional fields it cannot read', async () => {
    const entry = (usdPrice: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ usdPrice, decimals: 6, blockId: 1, priceChange24h: 0.5, ...extra });
    fake.script({
      kind: 'body',
      body: {
        [SOL]: entry(0),
        [USDC]: entry(1.25, { decimals: 6.5, blockId: '348004023', priceChange24h: null }),
        [UNPRICED]: entry(-3),
        Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB: entry('1.00'),
      },
    });

    const answer = await run(prices, [SOL, USDC, UNPRICED, 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB']);

    expect([...answer.entries()]).toEqual([[USDC, { usdPrice: 1.25, decimals: null, blockId: null, priceChange24h: null }]]);
  });

  it('ignores mints it did not ask for', async () => {
    fake.script({ kind: 'body', body: { [UNPRICED]: jupiterFakePrice(UNPRICED), [SOL]: jupiterFakePrice(SOL) } });

    expect([...(await run(prices, [SOL])).keys()]).toEqual([SOL]);
  });

  it.each<[string, ToolUpstreamError['kind'], JupiterBehaviour, RegExp]>([
    ['a 500', 'status', { kind: 'status', status: 500 }, /^jupiter answered 500$/],
    ['a 429', 'status', { kind: 'status', status: 429 }, /^jupiter answered 429$/],
    ['half a JSON body', 'malformed', { kind: 'malformed' }, /not JSON/],
    ['an array', 'malformed', { kind: 'body', body: [] }, /no object of prices/],
    ['null', 'malformed', { kind: 'body', body: null }, /no object of prices/],
  ])('turns %s into a %s error', async (_name, kind, behaviour, message) => {
    fake.script(behaviour);

    const error = await failure(run());

    expect(error.kind).toBe(kind);
    expect(error.message).toMatch(message);
  });

  it('answers the fake refusing an id with a status error', async () => {
    const error = await failure(run(prices, ['not-a-mint']));

    expect(error).toMatchObject({ kind: 'status', message: 'jupiter answered 400' });
  });

  it('does not follow a redirect', async () => {
    const elsewhere = await startJupiterFake();
    try {
      fake.script({ kind: 'redirect', location: `${elsewhere.url}/price/v3?ids=${SOL}` });

      const error = await failure(run());

      expect(error).toMatchObject({ kind: 'network', message: 'jupiter: request failed (unexpected redirect)' });
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

    await expect(prices.prices([SOL], controller.signal)).rejects.toBe(reason);
  });

  it('is a network error when nothing listens', async () => {
    const closed = await startJupiterFake();
    await closed.close();

    const error = await failure(run(adapter({ baseUrl: closed.url })));

    expect(error).toMatchObject({ kind: 'network', message: 'jupiter: request failed (ECONNREFUSED)' });
  });

  describe('against an oversized body', () => {
    let server: Server;
    let url: string;

    beforeAll(async () => {
      // Streams 2 MiB of a valid-looking answer without a content-length.
      server = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"padding":"');
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
