import { ToolUpstreamError } from '../../modules/tools/domain/tool-upstream-error';
import type { TokenPrice } from '../../modules/tools/ports/token-prices';
import { jupiterFakePrice, startJupiterFake, type JupiterFake } from '../../../test/fakes/jupiter-fake';
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

function adapter(): JupiterTokenPrices {
  return new JupiterTokenPrices({ baseUrl: fake.url, timeoutMs: 5000 });
}

function run(client = prices, mints: readonly string[] = [SOL, USDC]): Promise<ReadonlyMap<string, TokenPrice>> {
  return client.prices(mints, new AbortController().signal);
}

function expected(mint: string): TokenPrice {
  const { usdPrice, decimals, blockId, priceChange24h } = jupiterFakePrice(mint);
  return { usdPrice, decimals, blockId, priceChange24h };
}

// Faults every tool adapter must meet alike are in tool-upstream-faults.spec.ts.
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

  it('answers the fake refusing an id with a status error', async () => {
    const error = await run(prices, ['not-a-mint']).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ToolUpstreamError);
    expect(error).toMatchObject({ kind: 'status', message: 'jupiter answered 400' });
  });
});
