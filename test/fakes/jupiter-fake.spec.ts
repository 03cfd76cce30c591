import { jupiterFakePrice, startJupiterFake, type JupiterFake } from './jupiter-fake';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const UNPRICED = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';

let fake: JupiterFake;

beforeAll(async () => {
  fake = await startJupiterFake({ unknown: [UNPRICED] });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function get(query: string, path = '/price/v3', method = 'GET'): Promise<Response> {
  return fetch(`${fake.url}${path}${query}`, { method });
}

/** Distinct valid mints: 32 bytes each, base58. */
function mints(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${'1'.repeat(31)}${'23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'[index]}`);
}

describe('Jupiter fake', () => {
  it('prices every requested mint but the unknown ones, the same every time', async () => {
    const response = await get(`?ids=${SOL},${UNPRICED},${USDC}`);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ [SOL]: jupiterFakePrice(SOL), [USDC]: jupiterFakePrice(USDC) });
    expect(jupiterFakePrice(SOL)).toEqual(jupiterFakePrice(SOL));
    expect(jupiterFakePrice(SOL).usdPrice).toBeGreaterThan(0);
  });

  it('records the request', async () => {
    await get(`?ids=${SOL}`);

    expect(fake.requests).toEqual([expect.objectContaining({ method: 'GET', path: '/price/v3', query: { ids: SOL } })]);
  });

  it('plays the script, then the default', async () => {
    fake.script({ kind: 'status', status: 503 });
    fake.setDefault({ kind: 'missing-fields' });

    expect((await get(`?ids=${SOL}`)).status).toBe(503);
    const { usdPrice, ...rest } = jupiterFakePrice(SOL);
    expect(usdPrice).toBeGreaterThan(0);
    expect(await (await get(`?ids=${SOL}`)).json()).toEqual({ [SOL]: rest });
    fake.reset();
    expect(await (await get(`?ids=${SOL}`)).json()).toEqual({ [SOL]: jupiterFakePrice(SOL) });
  });

  it('sends half a body, or a redirect', async () => {
    fake.script({ kind: 'malformed' }, { kind: 'redirect', location: 'http://127.0.0.1:9/x' });

    await expect((await get(`?ids=${SOL}`)).json()).rejects.toThrow();
    const redirect = await fetch(`${fake.url}/price/v3?ids=${SOL}`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('http://127.0.0.1:9/x');
  });

  it('accepts fifty ids', async () => {
    const fifty = mints(50);

    const response = await get(`?ids=${fifty.join(',')}`);

    expect(response.status).toBe(200);
    expect(Object.keys((await response.json()) as object)).toHaveLength(50);
  });

  describe('refuses what Jupiter refuses', () => {
    it.each([
      ['no ids', ''],
      ['empty ids', '?ids='],
      ['more than 50 ids', `?ids=${mints(51).join(',')}`],
      ['an id that is not base58', `?ids=${SOL},0OIl${'1'.repeat(28)}`],
      ['an id too short for a public key', `?ids=${SOL},abc`],
      ['an empty id in the list', `?ids=${SOL},,${USDC}`],
    ])('%s with 400', async (_name, query) => {
      const response = await get(query);

      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    });

    it('other paths with 404', async () => {
      expect((await get(`?ids=${SOL}`, '/price/v2')).status).toBe(404);
      expect((await get(`?ids=${SOL}`, '/')).status).toBe(404);
    });

    it('methods other than GET with 405', async () => {
      expect((await get(`?ids=${SOL}`, '/price/v3', 'POST')).status).toBe(405);
    });

    it('without playing the script', async () => {
      fake.script({ kind: 'status', status: 500 });

      expect((await get('?ids=')).status).toBe(400);
      expect((await get(`?ids=${SOL}`)).status).toBe(500);
    });
  });
});
