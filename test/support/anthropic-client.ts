import Anthropic from '@anthropic-ai/sdk';

/**
 * The unmodified @anthropic-ai/sdk pointed at a gateway: a dummy api key (the gateway asks none),
 * no retries (a test sees each answer), and `fetch` when payments wrap it (@x402/fetch).
 */
export function anthropicClient(gatewayUrl: string, fetch?: typeof globalThis.fetch): Anthropic {
  return new Anthropic({ baseURL: gatewayUrl, apiKey: 'unused', maxRetries: 0, ...(fetch ? { fetch } : {}) });
}
