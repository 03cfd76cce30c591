import type { DataSource } from 'typeorm';
import type { ServiceEntry } from '../../modules/tools/domain/service-entry';
import { priceUsdc } from '../../modules/tools/domain/service-price';
import { ServiceStore } from '../../modules/tools/ports/service-store';
import { writeOperatorAudit } from './postgres-org-store';

/** bigint columns arrive from the driver as decimal strings, or null. */
interface ServiceRow {
  id: string;
  name: string;
  category: string;
  endpoint: string;
  x402_enabled: boolean;
  description: string | null;
  pricing: string;
  price_atomic: string | null;
  created_at: Date;
}

const COLUMNS = 'id, name, category, endpoint, x402_enabled, description, pricing, price_atomic, created_at';

/**
 * Runtime registry entries in the `services` table (migrations/1764600000000-create-services.ts).
 * One conditional insert per registration, so of two instances registering the same id exactly one
 * wins and the stored entry is never overwritten.
 */
export class PostgresServiceStore extends ServiceStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async list(): Promise<ServiceEntry[]> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM services ORDER BY created_at, id`)) as ServiceRow[];
    return rows.map(toEntry);
  }

  async find(id: string): Promise<ServiceEntry | null> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM services WHERE id = $1`, [id])) as ServiceRow[];
    return rows.length === 0 ? null : toEntry(rows[0]);
  }

  async add(entry: ServiceEntry): Promise<boolean> {
    // The table has no `internal` column: only the registry file declares services the gateway serves itself.
    if (entry.internal) throw new RangeError(`service ${entry.id}: runtime entries are external, never internal`);
    // The registration and its entry in the operator's audit land together, or neither does.
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `INSERT INTO services (id, name, category, endpoint, x402_enabled, description, pricing, price_atomic, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9::timestamptz, now()))
         ON CONFLICT (id) DO NOTHING
         RETURNING id`,
        [entry.id, entry.name, entry.category, entry.endpoint, entry.x402Enabled, entry.description, entry.pricing, entry.priceAtomic?.toString() ?? null, entry.createdAt],
      )) as unknown[];
      if (rows.length === 0) return false;
      const after = {
        id: entry.id,
        name: entry.name,
        category: entry.category,
        endpoint: entry.endpoint,
        x402_enabled: entry.x402Enabled,
        description: entry.description,
        pricing: entry.pricing,
        price_per_request_usdc: priceUsdc(entry.priceAtomic),
      };
      await writeOperatorAudit(manager, 'service.registered', null, after);
      return true;
    });
  }
}

function toEntry(row: ServiceRow): ServiceEntry {
  return {
    id: row.id,
    name: row.name,
    category: row.category,
    endpoint: row.endpoint,
    x402Enabled: row.x402_enabled,
    internal: false,
    description: row.description,
    pricing: row.pricing,
    source: 'api',
    priceAtomic: row.price_atomic === null ? null : BigInt(row.price_atomic),
    createdAt: row.created_at,
  };
}
