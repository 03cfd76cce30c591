import type { RateDecision } from '../../rate-limits/ports/rate-limit-store';
import type { Delivery } from '../domain/receipt';
import type { SettlementMoment } from '../domain/schemes';
import type { AnswerSpend } from '../../billing/application/spend-recorder';
import type { Settlement } from './settlement';

/**
 * A payment accepted for a chat request, whichever its scheme: an `exact` transfer broadcast at
 * the answer's first content (AcceptedPayment), or an `escrow` deposit settled before serving whose
 * claim becomes owed at the answer's first content and is worked once it ends (AcceptedDeposit).
 */
export interface PaidPayment {
  readonly scheme: 'exact' | 'escrow' | 'channel';
  /** When its money moves: an `exact` transfer as its surface asked, an escrow deposit before serving. */
  readonly settlesAt: SettlementMoment;
  readonly payer: string;
  /** What the payer put up: the transfer, or the deposit. */
  readonly amountPaid: bigint;
  readonly receiptId: string;
  readonly receiptPath: string | null;
  readonly replayKey: string;
  /** The id of the transaction that moves (or moved) the funds: the broadcast one once sent. */
  readonly transactionSignature: string;
  readonly rateLimit: RateDecision;
  /** Whether its answer has begun (an `exact` transfer was broadcast, an escrow claim became owed): from then on it is never given back unused. */
  readonly broadcasted: boolean;
  /** A durable-nonce transfer (no blockhash expiry bounds its landing): no content may leave until it has landed. */
  readonly holdsContentUntilLanded: boolean;
  whenExpiring(onExpiring: () => void): () => void;
  /** Nothing was delivered: nothing is charged. */
  release(): Promise<void>;
  /** The answer's first content is going out. */
  broadcast(servedModel: string | null): Promise<void>;
  settled(): Promise<Settlement>;
  /**
   * The `PAYMENT-RESPONSE` a stream's headers carry, sent at its first content: an `exact` transfer
   * broadcast and not confirmed yet (`extra.confirmed: false`), a durable-nonce one once landed, an
   * escrow deposit (landed before serving).
   */
  firstContentResponse(): Promise<string | null>;
  /** After the confirmation window, while `signal` lives: keeps looking for the transfer's landing (`pending` when stopped first). */
  watchLanding(signal: AbortSignal, timeoutMs: number): Promise<Settlement['status']>;
  recordDelivery(delivery: Delivery): Promise<void>;
  holdFor(ttlMs: number): Promise<void>;
  /**
   * The answer ended having delivered content; `realCost` is what its real usage costs (null when
   * the usage is unknown). Returns what the payer is charged: an `exact` payment what it paid; an
   * escrow deposit the real cost (the deposit when unknown, never more), queued for its claim; a
   * channel draw its quote, once recorded. The answer's spend row is written with the charge (a
   * draw's in the draw's own transaction).
   */
  charge(realCost: bigint | null, answer: AnswerSpend): Promise<bigint>;
  /**
   * What its client is told of `err`, which ended the request: as it is, or, for a channel draw
   * released because its answer never began, a 503 saying that nothing was drawn and the same
   * voucher may be sent again.
   */
  unserved(err: unknown): unknown;
}
