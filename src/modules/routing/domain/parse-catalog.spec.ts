import defaultCatalog from '../../../../catalog/catalog.json';
import { GatewayError } from '../../../errors/gateway-error';
import { PROVIDER_NAMES } from '../../providers/domain/provider-name';
import { PROFILES, TIERS } from './catalog';
import { resolveModelName } from './model-resolution';
import { CatalogError, parseCatalog } from './parse-catalog';

const copy = (): typeof defaultCatalog => JSON.parse(JSON.stringify(defaultCatalog)) as typeof defaultCatalog;

describe('the repository catalog', () => {
  const catalog = parseCatalog(defaultCatalog);

  it('covers the six providers, with at least three zero-priced nvidia models', () => {
    expect(new Set(catalog.models.map((m) => m.provider))).toEqual(new Set(PROVIDER_NAMES));
    expect(catalog.models.filter((m) => m.free && m.provider === 'nvidia').length).toBeGreaterThanOrEqual(3);
  });

  it('takes list prices from the public catalog of the same shape', () => {
    const sonnet = catalog.model('anthropic/claude-sonnet-4');
    expect(sonnet?.rates).toEqual({ inputAtomicPerMillion: 3_000_000n, outputAtomicPerMillion: 15_000_000n });
    expect(sonnet?.maxOutput).toBe(16384);
  });

  it('has the seven family aliases and every profile with its aliases', () => {
    expect(catalog.aliasNames().sort()).toEqual(['deepseek', 'gemini', 'gpt', 'grok', 'haiku', 'opus', 'sonnet']);
    expect(catalog.profileNames().sort()).toEqual(['auto', 'eco', 'free', 'open', 'oss', 'premium']);
  });

  it('maps each tier of the free profile to its own zero-priced model', () => {
    const free = catalog.profile('free')?.table;
    const primaries = TIERS.map((tier) => free?.[tier][0]);
    expect(primaries.every((model) => model?.free)).toBe(true);
    expect(new Set(primaries.map((model) => model?.id)).size).toBe(TIERS.length);
  });

  it('resolves ids, aliases and profiles; anything else is model_not_found', () => {
    expect(resolveModelName(catalog, 'openai/gpt-4o')).toMatchObject({ kind: 'model', model: { id: 'openai/gpt-4o' } });
    expect(resolveModelName(catalog, 'opus')).toMatchObject({ kind: 'model', model: { id: 'anthropic/claude-opus-4' } });
    for (const profile of PROFILES) expect(resolveModelName(catalog, profile)).toMatchObject({ kind: 'profile', profile });
    expect(resolveModelName(catalog, 'oss')).toMatchObject({ kind: 'profile', profile: 'free' });
    for (const name of ['gpt-4o', 'OPUS', 'openai/', 'Auto', 'claude', '']) {
      expect(() => resolveModelName(catalog, name)).toThrow(new GatewayError('chat.model_not_found', `model not found: ${name}`));
      expect(() => resolveModelName(catalog, name)).toThrow(expect.objectContaining({ type: 'model_not_found', code: 'chat.model_not_found' }));
    }
  });
});

describe('a malformed catalog', () => {
  const fails = (mutate: (file: ReturnType<typeof copy>) => void): string => {
    const file = copy();
    mutate(file);
    try {
      parseCatalog(file);
    } catch (err) {
      expect(err).toBeInstanceOf(CatalogError);
      return (err as Error).message;
    }
    throw new Error('parsed');
  };

  it('names the entry at fault', () => {
    expect(fails((f) => (f.models[1].input_per_million = '2.5.0'))).toBe('models[1] (openai/gpt-4o).input_per_million: must match pattern "^\\d{1,6}(\\.\\d{1,6})?$"');
    expect(fails((f) => delete (f.models[2] as Partial<(typeof f.models)[number]>).max_output)).toBe('models[2] (openai/gpt-4o-mini): missing field max_output');
    expect(fails((f) => (f.models[3].id = 'acme/model'))).toMatch(/^models\[3\] \(acme\/model\)\.id: must match pattern/);
    expect(fails((f) => (f.models[4].id = f.models[0].id))).toBe('models[4] (openai/gpt-5.2): duplicate model id');
    expect(fails((f) => (f.models[0].max_output = 500_000))).toBe('models[0] (openai/gpt-5.2): max_output exceeds context_window');
    expect(fails((f) => (f.aliases.gpt = 'openai/gpt-9'))).toBe('aliases.gpt: unknown model openai/gpt-9');
    expect(fails((f) => ((f.aliases as Record<string, string>).auto = 'openai/gpt-4o'))).toBe('aliases.auto: the name auto is already taken');
    expect(fails((f) => (f.profiles.free.Medium = ['openai/gpt-4o']))).toBe('profiles.free.Medium: the free profile may hold only zero-priced models');
    expect(fails((f) => (f.profiles.eco.Simple = []))).toBe('profiles.eco.Simple: must NOT have fewer than 1 items');
  });

  it('refuses a version that is not a real date, with or without its number of the day', () => {
    for (const version of ['x', '2026-02-31', '2026-11-23.beta', '23-11-2026']) {
      expect(fails((f) => (f.version = version))).toBe(`version: ${version} must be a date, YYYY-MM-DD, optionally followed by .<n>`);
    }
  });
});

describe("the catalog version's date", () => {
  it("is every model's created time, in Unix seconds of the day's start (UTC)", () => {
    expect(parseCatalog(defaultCatalog).released).toBe(Date.UTC(2026, 10, 23) / 1000);
    expect(parseCatalog({ ...copy(), version: '2027-01-05' }).released).toBe(Date.UTC(2027, 0, 5) / 1000);
  });
});
