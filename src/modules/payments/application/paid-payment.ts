import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';
import type { Delivery } from '../domain/receipt';
import type { Settlement } from './accepted-payment';

/**
 * A payment accepted for a chat request, whichever its scheme: an `exact` transfer broadcast at
 * the answer's first content (AcceptedPayment), or an `escrow` deposit settled before serving and
 * claimed at the real cost once the answer is delivered (AcceptedDeposit).
 */
export interface PaidPayment {
  readonly payer: string;
  /** What the payer put up: the transfer, or the deposit. */
  readonly amountPaid: bigint;
  readonly receiptId: string;
  readonly receiptPath: string | null;
  readonly replayKey: string;
  /** The id of the transaction that moves (or moved) the funds: the broadcast one once sent. */
  readonly transactionSignature: string;
  readonly rateLimit: RateDecision;
  /** Whether it can still be given back unused (nothing broadcast, nothing delivered). */
  readonly broadcasted: boolean;
  whenExpiring(onExpiring: () => void): () => void;
  /** Nothing was delivered: nothing is charged. */
  release(): Promise<void>;
  /** The answer's first content is going out. */
  broadcast(servedModel: string | null): Promise<void>;
  settled(): Promise<Settlement>;
  recordDelivery(delivery: Delivery): Promise<void>;
  holdFor(ttlMs: number): Promise<void>;
  /**
   * The answer ended having delivered content; `realCost` is what its real usage costs (null when
   * the usage is unknown). Returns what the payer is charged: an `exact` payment what it paid; an
   * escrow deposit the real cost (the deposit when unknown, never more), queued for its claim.
   */
  charge(realCost: bigint | null): Promise<bigint>;
}
