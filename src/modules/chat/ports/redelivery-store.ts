import type { ChatCompletion } from '../../providers/domain/chat-completion';

/** A paid answer whose client left before receiving all of it, kept for a resend of the same request and payment. */
export interface KeptAnswer {
  /** The request's fingerprint: only the same body may have it. */
  fingerprint: string;
  /** The whole answer, or what arrived before the provider failed (`finish_reason: null`). */
  completion: ChatCompletion;
  /** False when the answer was cut after its payment was broadcast: a stream of it ends with an error event. */
  whole: boolean;
  /** The payment's receipt, named again on the redelivered answer (its first client never got the header); null without storage. */
  receiptPath: string | null;
  /**
   * Its payment's transaction when the answer was kept before the transfer was seen landed: the
   * answer goes out again only if it has not landed with an error since, and, when `required` (a
   * durable nonce), only once it has landed. Null when it had settled.
   */
  landing: { signature: string; required: boolean } | null;
}

/**
 * Redelivery (docs/decisions.md, "Departing clients and redelivery"), keyed by the payment's replay key, for
 * GW_REDELIVERY_TTL_SECS: in Redis when configured (any replica can answer the resend), else in
 * memory bounded in bytes. Fails soft: a store that cannot answer has nothing kept.
 */
export abstract class RedeliveryStore {
  abstract keep(replayKey: string, answer: KeptAnswer, ttlMs: number): Promise<void>;

  abstract find(replayKey: string): Promise<KeptAnswer | null>;
}
