import type { GatewayConfig } from '../../config/gateway-config';
import { PROVIDER_NAMES, type ProviderName } from '../../modules/providers/domain/provider-name';
import type { LlmProvider } from '../../modules/providers/ports/llm-provider';
import { AnthropicProvider } from './anthropic/anthropic-provider';
import { GeminiProvider } from './google/gemini-provider';
import type { KeyedEndpoint } from './shared/keyed-endpoint';
import { OPENAI_COMPATIBLE_DIALECTS } from './openai-compatible/dialects';
import { OpenAiCompatibleProvider } from './openai-compatible/openai-compatible-provider';
import type { UpstreamHttp } from './shared/upstream-http';

/** One adapter per provider that has a key; a provider without a key is never called. */
export function providerAdapters(config: GatewayConfig, http: UpstreamHttp): LlmProvider[] {
  return PROVIDER_NAMES.flatMap((name) => {
    const endpoint = config.providers[name];
    const { apiKey } = endpoint;
    return apiKey ? [adapter(name, { ...endpoint, apiKey }, http)] : [];
  });
}

function adapter(name: ProviderName, endpoint: KeyedEndpoint, http: UpstreamHttp): LlmProvider {
  switch (name) {
    case 'anthropic':
      return new AnthropicProvider(endpoint, http);
    case 'google':
      return new GeminiProvider(endpoint, http);
    default:
      return new OpenAiCompatibleProvider(name, endpoint, http, OPENAI_COMPATIBLE_DIALECTS[name]);
  }
}
