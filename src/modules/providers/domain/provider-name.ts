/** The six upstream providers; one without an API key is never called (README.md, "Configuration"). */
export const PROVIDER_NAMES = ['openai', 'anthropic', 'google', 'xai', 'deepseek', 'nvidia'] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];
