import type { ServiceEntry } from '../domain/service-entry';
import { priceUsdc } from '../domain/service-price';

/** Spec 2.7's wire form of an entry, with whether it answers now (ServiceOffers.available). */
export function serviceView(entry: ServiceEntry, available: boolean) {
  return {
    id: entry.id,
    name: entry.name,
    category: entry.category,
    endpoint: entry.endpoint,
    x402_enabled: entry.x402Enabled,
    internal: entry.internal,
    description: entry.description,
    pricing: entry.pricing,
    chains: ['solana'],
    source: entry.source,
    price_per_request_usdc: priceUsdc(entry.priceAtomic),
    available,
  };
}
