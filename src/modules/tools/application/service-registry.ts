import { Injectable, Optional } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import type { ServiceEntry } from '../domain/service-entry';
import { ServiceStore } from '../ports/service-store';
import { SsrfGuard } from './ssrf-guard';

export interface ServiceFilter {
  /** Matched without regard to case. */
  category?: string;
  internal?: boolean;
}

/** A registration (spec 2.7 without `source` and `internal`): an external service, checked and kept in storage. */
export type ServiceRegistration = Omit<ServiceEntry, 'source' | 'internal' | 'createdAt'>;

/**
 * The service registry (spec 2.7, 4.5, 4.10): the registry file's entries, fixed at start, plus the
 * entries registered at runtime, read from storage on every look-up so that every instance sees a
 * registration at once.
 */
@Injectable()
export class ServiceRegistry {
  private readonly configured: ReadonlyMap<string, ServiceEntry>;

  constructor(
    config: GatewayConfig,
    private readonly ssrf: SsrfGuard,
    private readonly logger: AppLogger,
    @Optional() private readonly store?: ServiceStore,
  ) {
    logger.setContext(ServiceRegistry.name);
    this.configured = new Map(config.tools.services.map((entry) => [entry.id, entry]));
  }

  /** Sorted by id (spec 2.7). */
  async list(filter: ServiceFilter): Promise<ServiceEntry[]> {
    const category = filter.category?.toLowerCase();
    const all = [...this.configured.values(), ...(await this.registered())];
    return all
      .filter((entry) => (category === undefined || entry.category.toLowerCase() === category) && (filter.internal === undefined || entry.internal === filter.internal))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The registry file's entry wins: runtime registration never takes a configured id. */
  async find(id: string): Promise<ServiceEntry | null> {
    const configured = this.configured.get(id);
    if (configured || !this.store) return configured ?? null;
    const store = this.store;
    try {
      return await store.find(id);
    } catch (err) {
      throw this.unavailable(err);
    }
  }

  /** The entry the gateway serves itself under `id`, from the registry file only. */
  internal(id: string): ServiceEntry | null {
    const entry = this.configured.get(id);
    return entry?.internal ? entry : null;
  }

  /** POST /v1/services/register: storage first (503), then the SSRF check (400), then the id (409). */
  async register(registration: ServiceRegistration): Promise<ServiceEntry> {
    const store = this.requireStore();
    await this.ssrf.check(registration.endpoint);
    const entry: ServiceEntry = { ...registration, internal: false, source: 'api', createdAt: new Date() };
    if (this.configured.has(entry.id)) throw alreadyExists(entry.id);
    let added: boolean;
    try {
      added = await store.add(entry);
    } catch (err) {
      throw this.unavailable(err);
    }
    if (!added) throw alreadyExists(entry.id);
    this.logger.info({ service: entry.id }, 'service registered');
    return entry;
  }

  private async registered(): Promise<ServiceEntry[]> {
    if (!this.store) return [];
    try {
      return await this.store.list();
    } catch (err) {
      throw this.unavailable(err);
    }
  }

  private requireStore(): ServiceStore {
    if (!this.store) throw new GatewayError('services.storage_not_configured', 'registering services needs storage (GW_STORAGE is none)');
    return this.store;
  }

  private unavailable(err: unknown): GatewayError {
    this.logger.error({ err }, 'service registry storage failed');
    return new GatewayError('services.storage_unavailable', 'the service registry is unavailable; retry shortly');
  }
}

function alreadyExists(id: string): GatewayError {
  return new GatewayError('services.already_exists', `a service with id ${id} is already registered`);
}
