import { Injectable } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import type { ChatCost } from '../../billing/domain/chat-cost';
import { ServicePrices, type PricedService } from '../../payments/ports/service-prices';
import { WEB_SEARCH_SERVICE, type ServiceEntry } from '../domain/service-entry';
import { withFee } from '../domain/service-price';
import { WebSearch } from '../ports/web-search';
import { ServiceRegistry } from './service-registry';
import { SsrfGuard } from './ssrf-guard';

/**
 * What the paid routes cost, from the registry: a tool is on while the registry file lists it,
 * internal and priced (and, for search, while an upstream key is set); a proxied service is an
 * external entry without its own x402, priced, whose endpoint passes the SSRF rules now, before any
 * payment is taken (so a refused endpoint charges nothing).
 */
@Injectable()
export class ServiceOffers extends ServicePrices {
  constructor(
    private readonly registry: ServiceRegistry,
    private readonly search: WebSearch,
    private readonly ssrf: SsrfGuard,
  ) {
    super();
  }

  async costOf(service: PricedService): Promise<ChatCost> {
    if (service.kind === 'tool') return withFee(this.toolPrice(service.id));
    const entry = await this.proxied(service.id);
    await this.checkEndpoint(entry);
    return withFee(entry.priceAtomic as bigint);
  }

  /** The proxied service `id` as it stands, or the refusal a client gets for it. */
  async proxied(id: string): Promise<ServiceEntry & { priceAtomic: bigint }> {
    const entry = await this.registry.find(id);
    if (!entry || entry.internal) throw new GatewayError('services.not_found', `no external service ${id} is registered`);
    if (entry.x402Enabled) throw new GatewayError('services.not_proxied', `service ${id} takes x402 payments itself: pay it directly at ${entry.endpoint}`);
    if (entry.priceAtomic === null) throw new GatewayError('services.not_priced', `service ${id} has no price, so the gateway cannot sell calls to it`);
    return { ...entry, priceAtomic: entry.priceAtomic };
  }

  /** The SSRF check at proxy time; a refusal here is the service's fault, not the caller's: 502. */
  async checkEndpoint(entry: ServiceEntry): ReturnType<SsrfGuard['check']> {
    try {
      return await this.ssrf.check(entry.endpoint);
    } catch (err) {
      if (!(err instanceof GatewayError) || err.code !== 'services.endpoint_refused') throw err;
      throw new GatewayError('services.proxy_refused', `service ${entry.id} is not reachable safely: ${err.message}`);
    }
  }

  private toolPrice(id: string): bigint {
    const entry = this.registry.internal(id);
    if (!entry || entry.priceAtomic === null) throw new GatewayError('tools.not_configured', `the ${id} tool is not configured (no priced registry entry)`);
    if (id === WEB_SEARCH_SERVICE && !this.search.configured) throw new GatewayError('tools.not_configured', 'the web-search tool is not configured (no search API key)');
    return entry.priceAtomic;
  }
}
