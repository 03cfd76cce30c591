import type { PaidPayment } from './paid-payment';
import type { Settlement } from './settlement';

/**
 * Whether an answer's content may be handed out: not before its payment was broadcast (`held`),
 * nor before a durable-nonce transfer has landed, which it did not in time (`unconfirmed`).
 */
export type ContentRelease = 'open' | 'held' | 'unconfirmed';

/** What the answer being paid for hears from its payment. */
export interface SettlementEvents {
  /** The release changed, or the confirmation came in: waiting listeners look again. */
  changed(): void;
  /** The transfer landed with an error: the answer must stop at once. */
  halted(): void;
}

/**
 * A paid answer's payment from its first content on (`at_first_content`, and an escrow claim made
 * owed then; docs/decisions.md, "Money moves exactly once (1 of 2)" and "A failed landing stops
 * the answer"): the broadcast, content released at once or, for a durable-nonce transfer, once it
 * landed; a transfer that lands with an error, in the confirmation window or later while the
 * answer runs, halts the answer. The answer (chat's PaidGeneration) says when its first content
 * came and listens; what the payment allows is decided here.
 */
export class FirstContentSettlement {
  private state: ContentRelease = 'held';

  constructor(
    private readonly payment: PaidPayment,
    private readonly events: SettlementEvents,
    /** The longest the answer may run: the longest a late landing is watched for. */
    private readonly watchMs: number,
  ) {}

  get release(): ContentRelease {
    return this.state;
  }

  /** The first content is going out: the payment goes to the chain (a refusal throws), then its landing is watched while `running` lives. */
  async broadcast(servedModel: string, running: AbortSignal): Promise<void> {
    await this.payment.broadcast(servedModel);
    if (!this.payment.holdsContentUntilLanded) this.state = 'open';
    this.payment.settled().then(
      (settlement) => this.landed(settlement, running),
      () => this.landed({ status: 'pending', paymentResponse: null }, running),
    );
  }

  /** A held transfer was seen landed after its window (a resend asked): whether this opened its content. */
  markLanded(): boolean {
    if (this.state === 'open') return false;
    this.state = 'open';
    return true;
  }

  private landed(settlement: Settlement, running: AbortSignal): void {
    if (settlement.status === 'failed') this.events.halted();
    else if (this.state === 'held') this.state = settlement.status === 'settled' ? 'open' : 'unconfirmed';
    // Not seen landed in the window: watched while the answer runs, so that a late landing with an error still stops it.
    if (settlement.status === 'pending' && !running.aborted) {
      this.payment.watchLanding(running, this.watchMs).then(
        (late) => late === 'failed' && this.events.halted(),
        () => undefined,
      );
    }
    this.events.changed();
  }
}
