/** The six upstream providers (ARCHITECTURE.md section 3). */
export const PROVIDER_NAMES = ['openai', 'anthropic', 'google', 'xai', 'deepseek', 'nvidia'] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];
