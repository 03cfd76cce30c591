import type { DataSource } from 'typeorm';
import { Leases } from '../../modules/payments/ports/leases';

/** Leases in the `leases` table: one conditional upsert, so two replicas can never both win. */
export class PostgresLeases extends Leases {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
       WHERE leases.holder = EXCLUDED.holder OR leases.expires_at < now()
       RETURNING holder`,
      [name, holder, ttlMs],
    )) as unknown[];
    return rows.length === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.dataSource.query('DELETE FROM leases WHERE name = $1 AND holder = $2', [name, holder]);
  }
}
