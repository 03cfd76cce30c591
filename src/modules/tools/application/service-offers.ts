import { Injectable } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import { PaidServices, type PricedService, type ServiceOffer } from '../../payments/ports/paid-services';
import { WEB_SEARCH_SERVICE, type ServiceEntry } from '../domain/service-entry';
import { withFee } from '../domain/service-price';
import type { PinnedTarget } from '../ports/service-caller';
import { WebSearch } from '../ports/web-search';
import { ServiceRegistry } from './service-registry';
import { SsrfGuard } from './ssrf-guard';

/**
 * What the paid routes sell, from the registry: a tool is on while the registry file lists it,
 * internal and priced above zero (and, for search, while an upstream key is set); a proxied service
 * is an external entry without its own x402, priced above zero, whose endpoint passes the SSRF
 * rules now, before any payment is taken. The address that check accepted is the one the call
 * connects to (`serving`), so nothing can change between the check and the call.
 */
@Injectable()
export class ServiceOffers extends PaidServices {
  constructor(
    private readonly registry: ServiceRegistry,
    private readonly search: WebSearch,
    private readonly ssrf: SsrfGuard,
    private readonly logger: AppLogger,
  ) {
    super();
    logger.setContext(ServiceOffers.name);
  }

  /**
   * Whether a registry entry answers now, as the discovery documents say: a tool the gateway
   * serves while it would sell it (priced, its upstream configured); an external service that
   * takes its own x402, or that is priced for the proxy.
   */
  available(entry: ServiceEntry): boolean {
    if (entry.internal) return 'price' in toolTerms(entry.id, entry, this.search.configured);
    return entry.x402Enabled || isPriced(entry);
  }

  async offer(service: PricedService): Promise<ServiceOffer> {
    if (service.kind === 'tool') return { cost: withFee(this.toolPrice(service.id)), serving: null };
    const entry = await this.proxied(service.id);
    const target: PinnedTarget = await this.checkEndpoint(entry);
    return { cost: withFee(entry.priceAtomic), serving: target };
  }

  private async proxied(id: string): Promise<ServiceEntry & { priceAtomic: bigint }> {
    const entry = await this.registry.find(id);
    if (!entry || entry.internal) throw new GatewayError('services.not_found', `no external service ${id} is registered`);
    if (entry.x402Enabled) throw new GatewayError('services.not_proxied', `service ${id} takes x402 payments itself: pay it directly at ${entry.endpoint}`);
    if (!isPriced(entry)) throw new GatewayError('services.not_priced', `service ${id} has no price, so the gateway cannot sell calls to it`);
    return { ...entry, priceAtomic: entry.priceAtomic };
  }

  /** A refusal is the service's fault, not the caller's (502); what the name resolved to is logged, never shown to a paying stranger. */
  private async checkEndpoint(entry: ServiceEntry): Promise<PinnedTarget> {
    try {
      return await this.ssrf.check(entry.endpoint);
    } catch (err) {
      if (!(err instanceof GatewayError) || err.code !== 'services.endpoint_refused') throw err;
      this.logger.warn({ service: entry.id, reason: err.message }, 'registered service refused at proxy time by the SSRF rules');
      throw new GatewayError('services.proxy_refused', `service ${entry.id} cannot be reached safely now; nothing was charged`);
    }
  }

  private toolPrice(id: string): bigint {
    const terms = toolTerms(id, this.registry.internal(id), this.search.configured);
    if ('off' in terms) throw new GatewayError('tools.not_configured', terms.off);
    return terms.price;
  }
}

/** A price of zero sells nothing: a zero-amount payment proves no one paid. */
function isPriced(entry: ServiceEntry): entry is ServiceEntry & { priceAtomic: bigint } {
  return entry.priceAtomic !== null && entry.priceAtomic !== 0n;
}

/** The tool `id`'s price while it is on, or why it is off (its registry entry missing or unpriced, or search without its key). */
function toolTerms(id: string, entry: ServiceEntry | null, searchConfigured: boolean): { price: bigint } | { off: string } {
  if (!entry || !isPriced(entry)) return { off: `the ${id} tool is not configured (no priced registry entry)` };
  if (id === WEB_SEARCH_SERVICE && !searchConfigured) return { off: 'the web-search tool is not configured (no search API key)' };
  return { price: entry.priceAtomic };
}
