import type { BroadcastRecord, Delivery, Receipt, ReceiptOutcome } from '../domain/receipt';

/** Where a walk over pending receipts stopped. */
export type ReceiptCursor = Pick<Receipt, 'createdAt' | 'id'>;

/** Another receipt that is not `not_charged` already holds this payment's replay key. */
export class PaymentAlreadyHeld extends Error {
  override name = 'PaymentAlreadyHeld';
  constructor() {
    super('a receipt already holds this payment');
  }
}

/**
 * Durable receipts (PostgreSQL or PGlite). With GW_STORAGE=none there is no ReceiptStore
 * provider at all: receipts are not written and GET /v1/receipts answers 503.
 */
export abstract class ReceiptStore {
  /**
   * Writes a new pending receipt: the durable claim on its payment. Throws PaymentAlreadyHeld when
   * another receipt still holds the replay key, on any instance; a second write of the same id is ignored.
   */
  abstract create(receipt: Receipt): Promise<void>;

  /** Records that the payment was handed to the chain, with the bytes that were sent. */
  abstract recordBroadcast(id: string, broadcast: BroadcastRecord): Promise<void>;

  /**
   * Moves a pending receipt to its outcome. True when this call moved it; false when there is no
   * such receipt or it was final already (a late or repeated completion changes nothing), so that
   * what follows a receipt (budgets, metrics) happens once.
   */
  abstract complete(id: string, outcome: ReceiptOutcome): Promise<boolean>;

  /** Records what the payer received, once. */
  abstract recordDelivery(id: string, delivery: Delivery): Promise<void>;

  /**
   * Pending receipts created before `createdBefore` that can be reconciled (they hold their
   * transaction), oldest first (by creation, then id), after `after` when given: the reconciler
   * walks them page by page, so receipts it cannot finish yet never hide the newer ones.
   */
  abstract pending(createdBefore: Date, limit: number, after?: ReceiptCursor): Promise<Receipt[]>;

  abstract find(id: string): Promise<Receipt | null>;
}
