import type { Receipt, ReceiptOutcome } from '../domain/receipt';

/**
 * Durable receipts (PostgreSQL or PGlite). With GW_STORAGE=none there is no ReceiptStore
 * provider at all: receipts are not written and GET /v1/receipts answers 503.
 */
export abstract class ReceiptStore {
  /** Writes a new receipt (status pending); a second write of the same id is ignored. */
  abstract create(receipt: Receipt): Promise<void>;

  /** Moves a pending receipt to its outcome; returns the updated receipt, or null when none has that id. */
  abstract complete(id: string, outcome: ReceiptOutcome): Promise<Receipt | null>;

  abstract find(id: string): Promise<Receipt | null>;
}
