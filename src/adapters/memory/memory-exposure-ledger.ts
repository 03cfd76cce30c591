import { ExposureLedger, LANDED_KEEP_MS, type ExposureEntry } from '../../modules/payments/ports/exposure-ledger';

interface Debit {
  amount: bigint;
  /** The source version at which it landed; 0 while in flight. */
  landedAt: number;
  expiresAt: number;
}

interface Source {
  version: number;
  debits: Map<string, Debit>;
}

const SWEEP_AT = 10_000;

/** Per-instance in-flight debits (no Redis, or Redis failing). Sources with nothing left are dropped as the map grows. */
export class MemoryExposureLedger extends ExposureLedger {
  private readonly sources = new Map<string, Source>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  version(source: string): Promise<number> {
    return Promise.resolve(this.sources.get(source)?.version ?? 0);
  }

  admit(entry: ExposureEntry, balance: bigint, readVersion: number, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const source = this.source(entry.source, now);
    let exposed = entry.amount;
    for (const debit of source.debits.values()) if (debit.landedAt === 0 || debit.landedAt > readVersion) exposed += debit.amount;
    if (exposed > balance) return Promise.resolve(false);
    this.record(entry, ttlMs);
    return Promise.resolve(true);
  }

  /** Keeps a debit another ledger admitted, so it still counts should this one have to answer. */
  record(entry: ExposureEntry, ttlMs: number): void {
    const now = this.now();
    this.source(entry.source, now).debits.set(entry.id, { amount: entry.amount, landedAt: 0, expiresAt: now + ttlMs });
  }

  landed(source: string, id: string): Promise<void> {
    const now = this.now();
    const state = this.source(source, now);
    state.version += 1;
    const debit = state.debits.get(id);
    if (debit) state.debits.set(id, { amount: debit.amount, landedAt: state.version, expiresAt: now + LANDED_KEEP_MS });
    return Promise.resolve();
  }

  remove(source: string, id: string): Promise<void> {
    this.sources.get(source)?.debits.delete(id);
    return Promise.resolve();
  }

  /** The source with its lapsed debits dropped (its version survives as long as it has debits). */
  private source(address: string, now: number): Source {
    let source = this.sources.get(address);
    if (!source) {
      if (this.sources.size >= SWEEP_AT) this.sweep(now);
      source = { version: 0, debits: new Map() };
      this.sources.set(address, source);
    }
    for (const [id, debit] of source.debits) if (debit.expiresAt <= now) source.debits.delete(id);
    return source;
  }

  private sweep(now: number): void {
    for (const [address, source] of this.sources) {
      for (const [id, debit] of source.debits) if (debit.expiresAt <= now) source.debits.delete(id);
      if (source.debits.size === 0) this.sources.delete(address);
    }
  }
}
