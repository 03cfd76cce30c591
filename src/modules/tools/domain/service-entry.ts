/** Spec 2.7: a service registry entry, as the gateway keeps it (money as atomic USDC). */
export interface ServiceEntry {
  /** `[a-z0-9-]`, 1 to 64 characters. */
  id: string;
  name: string;
  category: string;
  /** A relative path for internal services; an absolute https URL for external ones. */
  endpoint: string;
  x402Enabled: boolean;
  /** True when the gateway itself serves it. */
  internal: boolean;
  description: string | null;
  /** Human label of the price, the 5 percent fee included. */
  pricing: string;
  /** `config` (the registry file) or `api` (registered at runtime, kept in storage). */
  source: 'config' | 'api';
  /** The flat price per request before the fee, in atomic USDC; null when unpriced. */
  priceAtomic: bigint | null;
  /** When it was registered (runtime entries); null for the registry file's. */
  createdAt: Date | null;
}

/** Spec 2.7, 8: registry ids. */
export const SERVICE_ID = /^[a-z0-9-]{1,64}$/;

/** The ids of the two tools the gateway serves itself; removing or unpricing their entry turns the tool off. */
export const WEB_SEARCH_SERVICE = 'web-search';
export const TOKEN_PRICE_SERVICE = 'token-price';
