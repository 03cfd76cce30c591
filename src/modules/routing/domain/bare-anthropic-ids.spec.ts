import defaultCatalog from '../../../../catalog/catalog.json';
import { catalogNameOfBareAnthropicId } from './model-resolution';
import { parseCatalog } from './parse-catalog';

describe('catalogNameOfBareAnthropicId', () => {
  const catalog = parseCatalog(defaultCatalog);
  const name = (bare: string) => catalogNameOfBareAnthropicId(catalog, bare);

  it('names the Anthropic entry whose id or upstream model is the bare id, with or without its date suffix', () => {
    expect(name('claude-haiku-4-5')).toBe('anthropic/claude-haiku-4-5');
    expect(name('claude-haiku-4-5-20251001')).toBe('anthropic/claude-haiku-4-5');
    expect(name('claude-sonnet-4-20250514')).toBe('anthropic/claude-sonnet-4');
    expect(name('claude-sonnet-4')).toBe('anthropic/claude-sonnet-4');
  });

  it('leaves catalog names, other providers and unknown ids as they are', () => {
    for (const kept of ['sonnet', 'auto', 'anthropic/claude-opus-4', 'gpt-4o', 'claude-unknown-9', 'claude-sonnet-4-5']) expect(name(kept)).toBe(kept);
  });
});
