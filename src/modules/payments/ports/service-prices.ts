import type { ChatCost } from '../../billing/domain/chat-cost';

/** What a paid route sells: one of the gateway's own tools, or a call proxied to a registered service. */
export type PricedService = { kind: 'tool'; id: string } | { kind: 'proxied'; id: string };

/**
 * The flat prices of registry services, fee included (the registry lives in the tools module).
 * Throws the route's GatewayError when the service cannot be sold now: a tool turned off (503), an
 * unknown or unproxied service (404, 400), an endpoint the SSRF rules refuse (502).
 */
export abstract class ServicePrices {
  abstract costOf(service: PricedService): Promise<ChatCost>;
}
