import type { ProviderEndpoint } from '../../../config/gateway-config';

/** A provider endpoint whose API key is configured: the only kind an adapter is built with. */
export type KeyedEndpoint = ProviderEndpoint & { apiKey: NonNullable<ProviderEndpoint['apiKey']> };
