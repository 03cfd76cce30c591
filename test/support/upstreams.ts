import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import defaultCatalog from '../../catalog/catalog.json';
import { startAnthropicFake } from '../fakes/anthropic-fake';
import type { Fake } from '../fakes/fake-server';
import { startGeminiFake } from '../fakes/gemini-fake';
import { startDeepSeekFake, startOpenAiFake } from '../fakes/openai-fake';
import { startJupiterFake, type JupiterFake } from '../fakes/jupiter-fake';
import { startTavilyFake, type TavilyFake } from '../fakes/tavily-fake';
import { tempDir } from './gateway-harness';

/** The search API key the Tavily fake accepts. */
export const TEST_SEARCH_KEY = 'tvly-test-key-0123456789';
/** A mint the Jupiter fake has no price for. */
export const UNPRICED_MINT = 'UnpricedMint1111111111111111111111111111111';

/** One fake server per provider the tests talk to (xAI and DeepSeek share OpenAI's wire format and fake), and one per tool upstream. */
export interface Upstreams {
  openai: Fake;
  anthropic: Fake;
  google: Fake;
  nvidia: Fake;
  /** xAI speaks OpenAI's format. */
  xai: Fake;
  deepseek: Fake;
  tavily: TavilyFake;
  jupiter: JupiterFake;
  /** Gateway environment pointing every provider at its fake, with keys set. */
  env: Record<string, string>;
  resetAll(): void;
  close(): Promise<void>;
}

export async function startUpstreams(): Promise<Upstreams> {
  const [openai, anthropic, google, nvidia, xai, deepseek, tavily, jupiter] = await Promise.all([
    startOpenAiFake(),
    startAnthropicFake(),
    startGeminiFake(),
    startOpenAiFake(),
    startOpenAiFake(),
    startDeepSeekFake(),
    startTavilyFake({ apiKey: TEST_SEARCH_KEY }),
    startJupiterFake({ unknown: [UNPRICED_MINT] }),
  ]);
  const fakes = [openai, anthropic, google, nvidia, xai, deepseek, tavily, jupiter];
  return {
    openai,
    anthropic,
    google,
    nvidia,
    xai,
    deepseek,
    tavily,
    jupiter,
    env: {
      OPENAI_API_KEY: 'sk-test-openai',
      ANTHROPIC_API_KEY: 'sk-test-anthropic',
      GOOGLE_API_KEY: 'test-google-key',
      NVIDIA_API_KEY: 'nvapi-test',
      XAI_API_KEY: 'xai-test',
      DEEPSEEK_API_KEY: 'sk-test-deepseek',
      GW_OPENAI_BASE_URL: openai.url,
      GW_ANTHROPIC_BASE_URL: anthropic.url,
      GW_GOOGLE_BASE_URL: google.url,
      GW_NVIDIA_BASE_URL: nvidia.url,
      GW_XAI_BASE_URL: xai.url,
      GW_DEEPSEEK_BASE_URL: deepseek.url,
      GW_SEARCH_BASE_URL: tavily.url,
      GW_SEARCH_API_KEY: TEST_SEARCH_KEY,
      GW_PRICE_BASE_URL: jupiter.url,
    },
    resetAll: () => fakes.forEach((fake) => fake.reset()),
    close: async () => void (await Promise.all(fakes.map((fake) => fake.close()))),
  };
}

/**
 * The repository catalog plus a zero-priced model for each wire format and for xAI and DeepSeek, so
 * the free path (no payment) reaches every adapter and dialect, and `extra` zero-priced models; the free profile's Simple tier
 * tries Anthropic, then NVIDIA. Returns the file's path for GW_CATALOG_FILE.
 */
export function writeTestCatalog(extra: ReadonlyArray<{ id: string; upstream_model: string; reasoning?: boolean; vision?: boolean }> = []): string {
  const catalog = JSON.parse(JSON.stringify(defaultCatalog)) as typeof defaultCatalog;
  const free = { input_per_million: '0', output_per_million: '0', context_window: 128000, max_output: 4096, capabilities: { tools: true, vision: true, reasoning: false } };
  catalog.models.push(
    { id: 'openai/gpt-test-free', upstream_model: 'gpt-test', display_name: 'GPT test (free)', ...free },
    { id: 'anthropic/claude-test-free', upstream_model: 'claude-test', display_name: 'Claude test (free)', ...free },
    { id: 'google/gemini-test-free', upstream_model: 'gemini-test', display_name: 'Gemini test (free)', ...free },
    { id: 'xai/grok-test-free', upstream_model: 'grok-test', display_name: 'Grok test (free)', ...free },
    { id: 'deepseek/deepseek-test-free', upstream_model: 'deepseek-chat', display_name: 'DeepSeek test (free)', ...free, capabilities: { ...free.capabilities, vision: false } },
    ...extra.map(({ id, upstream_model, reasoning = false, vision = true }) => ({ id, upstream_model, display_name: `${id} (free)`, ...free, capabilities: { tools: true, vision, reasoning } })),
  );
  catalog.profiles.free.Simple = ['anthropic/claude-test-free', 'nvidia/llama-3.3-70b-instruct'];
  const path = join(tempDir('gw-catalog-'), 'catalog.json');
  writeFileSync(path, JSON.stringify(catalog));
  return path;
}

/** Reads a Server-Sent Events body into its `data:` payloads, in order. */
export async function sseData(res: Response): Promise<string[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}
