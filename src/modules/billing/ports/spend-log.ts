import type { SpendRecord } from '../domain/spend-record';

/** Where served requests' charges are kept: one row per request. */
export abstract class SpendLog {
  /** Idempotent per request id: a second record for the same request leaves the first untouched. */
  abstract record(entry: SpendRecord): Promise<void>;

  abstract findByRequestId(requestId: string): Promise<SpendRecord | null>;
}
