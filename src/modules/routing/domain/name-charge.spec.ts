import defaultCatalog from '../../../../catalog/catalog.json';
import { resolveModelName } from './model-resolution';
import { chargeOf } from './name-charge';
import { parseCatalog } from './parse-catalog';

describe('chargeOf', () => {
  const charge = (raw: unknown, name: string) => chargeOf(resolveModelName(parseCatalog(raw), name));

  it('knows from the name alone whether the shipped catalog serves a request free or paid', () => {
    expect(charge(defaultCatalog, 'nvidia/gpt-oss-120b')).toBe('free');
    expect(charge(defaultCatalog, 'openai/gpt-4o')).toBe('paid');
    expect(charge(defaultCatalog, 'sonnet')).toBe('paid');
    for (const profile of ['free', 'oss', 'open']) expect(charge(defaultCatalog, profile)).toBe('free');
    for (const profile of ['auto', 'eco', 'premium']) expect(charge(defaultCatalog, profile)).toBe('paid');
  });

  it('leaves it to the tier for a profile that mixes free and paid models', () => {
    const mixed = JSON.parse(JSON.stringify(defaultCatalog)) as typeof defaultCatalog;
    mixed.profiles.eco.Simple = ['nvidia/gpt-oss-120b', ...mixed.profiles.eco.Simple];
    expect(charge(mixed, 'eco')).toBe('either');
  });
});
