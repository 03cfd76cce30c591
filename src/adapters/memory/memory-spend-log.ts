import type { SpendRecord } from '../../modules/billing/domain/spend-record';
import { SpendLog } from '../../modules/billing/ports/spend-log';

/** Rows kept in this process when storage is off (GW_STORAGE=none); the oldest go first past the capacity. */
export class MemorySpendLog extends SpendLog {
  private readonly rows = new Map<string, SpendRecord>();

  constructor(private readonly capacity = 10_000) {
    super();
  }

  async record(entry: SpendRecord): Promise<void> {
    if (this.rows.has(entry.requestId)) return;
    this.rows.set(entry.requestId, { ...entry });
    if (this.rows.size > this.capacity) {
      const oldest = this.rows.keys().next().value as string;
      this.rows.delete(oldest);
    }
  }

  async findByRequestId(requestId: string): Promise<SpendRecord | null> {
    const row = this.rows.get(requestId);
    return row ? { ...row } : null;
  }
}
