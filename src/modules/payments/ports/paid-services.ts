import type { ChatCost } from '../../billing/domain/chat-cost';

/** What a paid route sells: one of the gateway's own tools, or a call proxied to a registered service. */
export type PricedService = { kind: 'tool'; id: string } | { kind: 'proxied'; id: string };

/** A service as it can be sold now: its price with the fee, and what the route needs to serve it. */
export interface ServiceOffer {
  cost: ChatCost;
  /**
   * Fixed before the payment and handed to the handler (`@ServingTerms()`): for the proxy, the
   * address the SSRF check accepted, which the call then connects to; null for the tools.
   */
  serving: unknown;
}

/**
 * The registry's flat prices, fee included (the registry lives in the tools module). Throws the
 * route's GatewayError when the service cannot be sold now: a tool turned off (503), an unknown,
 * unpriced or unproxied service (404, 503, 400), an endpoint the SSRF rules refuse (502).
 */
export abstract class PaidServices {
  abstract offer(service: PricedService): Promise<ServiceOffer>;
}
