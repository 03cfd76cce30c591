import { AnthropicProvider } from '../../src/adapters/llm/anthropic/anthropic-provider';
import { startAnthropicFake } from '../fakes/anthropic-fake';
import type { AdapterSetup } from './adapter-on-fake';

/** The Anthropic adapter on the Anthropic fake, as its specs drive it. */
export const ANTHROPIC_ON_FAKE: AdapterSetup<AnthropicProvider> = {
  startFake: startAnthropicFake,
  apiKey: 'sk-ant-test',
  adapter: (endpoint, http) => new AnthropicProvider(endpoint, http),
  upstreamModel: 'claude-test',
};
