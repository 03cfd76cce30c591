/** One accepted payment's debit of a source token account, until it lands or is given back. */
export interface ExposureEntry {
  source: string;
  /** The receipt id of the payment. */
  id: string;
  amount: bigint;
}

/**
 * In-flight debits per source token account (docs/decisions.md, "In-flight exposure"), shared by
 * every instance when Redis is configured. A balance read by a simulation does not see payments
 * still in flight; `admit` adds them. Each source has a version that moves at every landing, so a
 * debit that landed after a balance was read still counts against that read, and one that landed
 * before it does not count twice.
 */
export abstract class ExposureLedger {
  /** The source's version, taken before its balance is read. */
  abstract version(source: string): Promise<number>;

  /**
   * Records the entry if it and the debits in flight for a read at `readVersion` fit in `balance`
   * (the balance before this payment); false when they would not. The entry lapses after `ttlMs`.
   */
  abstract admit(entry: ExposureEntry, balance: bigint, readVersion: number, ttlMs: number): Promise<boolean>;

  /** The debit landed: from the next version on, balance reads include it. */
  abstract landed(source: string, id: string): Promise<void>;

  /** The debit never happened (released, or it landed with an error). */
  abstract remove(source: string, id: string): Promise<void>;
}

/** How long a landed debit still counts for balance reads taken before it landed; far more than one acceptance takes. */
export const LANDED_KEEP_MS = 60_000;
