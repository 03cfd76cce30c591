import defaultServices from '../../../../catalog/services.json';
import { TOKEN_PRICE_SERVICE, WEB_SEARCH_SERVICE } from './service-entry';
import { withFee } from './service-price';
import { parseServicesFile, ServicesFileError } from './services-file';

type RawEntry = Record<string, unknown>;

const external = (overrides: RawEntry = {}): RawEntry => ({
  id: 'weather',
  name: 'Weather',
  category: 'data',
  endpoint: 'https://weather.example.com/v1/now',
  x402_enabled: true,
  internal: false,
  description: null,
  price_per_request_usdc: '0.02',
  ...overrides,
});

/** The error message for a file of these entries; fails the test if it parses. */
const refusal = (services: unknown[]): string => {
  try {
    parseServicesFile({ services });
  } catch (err) {
    expect(err).toBeInstanceOf(ServicesFileError);
    return (err as Error).message;
  }
  throw new Error('parsed');
};

describe("the repository's registry file", () => {
  const entries = parseServicesFile(defaultServices);

  it('holds the two internal tools, priced at $0.01 and $0.001 before the fee', () => {
    expect(entries.map((entry) => entry.id)).toEqual([TOKEN_PRICE_SERVICE, WEB_SEARCH_SERVICE]);
    const [price, search] = entries;
    expect(search).toMatchObject({ name: 'Web search', category: 'search', endpoint: '/v1/search', x402Enabled: true, internal: true, source: 'config', priceAtomic: 10_000n, createdAt: null });
    expect(price).toMatchObject({ name: 'Token prices', category: 'data', endpoint: '/v1/solana/price', x402Enabled: true, internal: true, source: 'config', priceAtomic: 1_000n, createdAt: null });
    expect(search.pricing).toBe('$0.0105 per request (5% fee included)');
    expect(price.pricing).toBe('$0.00105 per request (5% fee included)');
  });

  it('charges 10,500 atomic units for a search and 1,050 for a price lookup (spec 2.7)', () => {
    expect(withFee(entries[1].priceAtomic as bigint).total).toBe(10_500n);
    expect(withFee(entries[0].priceAtomic as bigint).total).toBe(1_050n);
  });
});

describe('parseServicesFile', () => {
  it('builds entries sorted by id, with defaults for the optional fields', () => {
    const entries = parseServicesFile({
      services: [external({ id: 'zeta', description: undefined, price_per_request_usdc: undefined }), external({ id: 'alpha', description: 'Now.', chains: ['solana'] })],
    });
    expect(entries).toEqual([
      {
        id: 'alpha',
        name: 'Weather',
        category: 'data',
        endpoint: 'https://weather.example.com/v1/now',
        x402Enabled: true,
        internal: false,
        description: 'Now.',
        pricing: '$0.021 per request (5% fee included)',
        source: 'config',
        priceAtomic: 20_000n,
        createdAt: null,
      },
      expect.objectContaining({ id: 'zeta', description: null, priceAtomic: null, pricing: 'not priced' }),
    ]);
  });

  it('reads prices exactly: 0.3 is 300,000, 0 and null are kept apart', () => {
    const prices = (value: unknown): bigint | null => parseServicesFile({ services: [external({ price_per_request_usdc: value })] })[0].priceAtomic;
    expect(prices(0.3)).toBe(300_000n);
    expect(prices('0.3')).toBe(300_000n);
    expect(prices(0)).toBe(0n);
    expect(prices(null)).toBeNull();
  });

  it('accepts an empty registry', () => {
    expect(parseServicesFile({ services: [] })).toEqual([]);
  });

  it('refuses prices it cannot read exactly, or negative', () => {
    expect(refusal([external({ price_per_request_usdc: '0.0000001' })])).toBe(
      'services[0] (weather): price_per_request_usdc must be a non-negative number or decimal string with at most 6 decimals, or null',
    );
    expect(refusal([external({ price_per_request_usdc: 1e-7 })])).toMatch(/^services\[0\] \(weather\): price_per_request_usdc /);
    expect(refusal([external({ price_per_request_usdc: 0.1 + 0.2 })])).toMatch(/price_per_request_usdc/);
    expect(refusal([external({ price_per_request_usdc: -0.01 })])).toMatch(/price_per_request_usdc/);
    expect(refusal([external({ price_per_request_usdc: '-1' })])).toMatch(/price_per_request_usdc/);
    expect(refusal([external({ price_per_request_usdc: true })])).toMatch(/price_per_request_usdc/);
  });

  it('refuses duplicate ids, naming the second', () => {
    expect(refusal([external({ id: 'a' }), external({ id: 'b' }), external({ id: 'a' })])).toBe('services[2] (a): duplicate id');
  });

  it('refuses unknown fields, pricing and source included, naming them', () => {
    expect(refusal([external({ colour: 'red' })])).toBe('services[0] (weather): unknown field colour');
    expect(refusal([external({ pricing: '$1' })])).toBe('services[0] (weather): unknown field pricing');
    expect(refusal([external({ source: 'api' })])).toBe('services[0] (weather): unknown field source');
    expect(() => parseServicesFile({ services: [], version: 1 })).toThrow(new ServicesFileError('the services file has an unknown field version'));
  });

  it('refuses an external endpoint that is not an absolute https URL', () => {
    for (const endpoint of ['http://weather.example.com/v1', '/v1/weather', 'https://', 'https:// example.com/', 'ftp://example.com/', 'HTTPS://example.com/', 42]) {
      expect(refusal([external({ endpoint })])).toMatch(/^services\[0\] \(weather\): endpoint /);
    }
    expect(refusal([external({ endpoint: 'http://weather.example.com/v1' })])).toBe('services[0] (weather): endpoint of an external service must be an absolute https:// URL');
  });

  it('refuses an internal endpoint that is not a path of the gateway', () => {
    for (const endpoint of ['https://example.com/v1/search', 'v1/search', '//example.com/v1', '/v1/ search', '']) {
      expect(refusal([external({ internal: true, endpoint })])).toBe('services[0] (weather): endpoint of an internal service must be a path starting with /');
    }
  });

  it('refuses ids outside the registry pattern, naming the entry by its index', () => {
    for (const id of ['Weather', 'a_b', '', 'x'.repeat(65), 'ü', 7, undefined]) {
      expect(refusal([external({ id })])).toMatch(/^services\[0\]( \(.*\))?: id must be 1 to 64 characters of a-z, 0-9 and -$/);
    }
    expect(parseServicesFile({ services: [external({ id: 'x'.repeat(64) })] })[0].id).toBe('x'.repeat(64));
  });

  it('checks every other field', () => {
    const cases: Array<[RawEntry, string]> = [
      [{ name: '' }, 'name must be a non-blank string of at most 128 characters'],
      [{ name: '   ' }, 'name must be a non-blank string of at most 128 characters'],
      [{ name: 'n'.repeat(129) }, 'name must be a non-blank string of at most 128 characters'],
      [{ name: undefined }, 'name must be a non-blank string of at most 128 characters'],
      [{ category: 'c'.repeat(65) }, 'category must be a non-blank string of at most 64 characters'],
      [{ category: 3 }, 'category must be a non-blank string of at most 64 characters'],
      [{ description: 'd'.repeat(1001) }, 'description must be a string of at most 1000 characters, or null'],
      [{ description: 5 }, 'description must be a string of at most 1000 characters, or null'],
      [{ x402_enabled: 'true' }, 'x402_enabled must be a boolean'],
      [{ x402_enabled: undefined }, 'x402_enabled must be a boolean'],
      [{ internal: 1 }, 'internal must be a boolean'],
      [{ chains: ['ethereum'] }, 'chains must be ["solana"]'],
      [{ chains: ['solana', 'solana'] }, 'chains must be ["solana"]'],
      [{ chains: 'solana' }, 'chains must be ["solana"]'],
      [{ endpoint: undefined }, 'endpoint must be a string'],
    ];
    for (const [overrides, message] of cases) expect(refusal([external(overrides)])).toBe(`services[0] (weather): ${message}`);
    expect(parseServicesFile({ services: [external({ name: 'n'.repeat(128), category: 'c'.repeat(64), description: 'd'.repeat(1000) })] })).toHaveLength(1);
  });

  it('refuses a file of the wrong shape', () => {
    for (const file of [null, [], 'services', { services: {} }, {}]) expect(() => parseServicesFile(file)).toThrow(ServicesFileError);
    expect(refusal([null])).toBe('services[0]: must be an object');
    expect(refusal([external(), ['weather']])).toBe('services[1]: must be an object');
  });
});
