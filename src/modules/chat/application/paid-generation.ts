import { GatewayError } from '../../../errors/gateway-error';
import { FirstContentSettlement } from '../../payments/application/first-content-settlement';
import type { Settlement } from '../../payments/application/settlement';
import type { PaidPayment } from '../../payments/application/paid-payment';
import { paymentErrors } from '../../payments/domain/payment-errors';
import type { Delivery } from '../../payments/domain/receipt';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import { carriesContent, CompletionAssembler } from '../domain/completion-stream';
import { streamFailure } from '../domain/mid-stream-error';

/** How a paid generation ended: with an answer (whole, or cut after its payment was broadcast), or with an error and nothing charged. */
export type GenerationEnd = { kind: 'answer'; completion: ChatCompletion; whole: boolean; settlement: Settlement; error: GatewayError | null } | { kind: 'error'; error: GatewayError };

/** The JSON answer of a paid generation: whole, or cut after the broadcast (`finish_reason: null`); an error throws. */
export function answerOf(end: GenerationEnd): ChatCompletion {
  if (end.kind === 'error') throw end.error;
  if (end.settlement.status === 'failed' && end.error) throw end.error;
  return end.completion;
}

/** How much of the answer reached the client that asked for it. */
export type Received = 'all' | 'some' | 'none';

export interface GenerationOptions {
  payment: PaidPayment;
  /** Our model id, put on every chunk. */
  modelId: string;
  /** Aborts the upstream call; owned by the generation, never by the client's connection. */
  upstream: AbortController;
  /** Called, synchronously, just before the payment is broadcast (the request timeout stops applying). */
  onBroadcast: () => void;
  /** The longest the answer may run (GW_STREAM_MAX_SECS): the longest its transfer's landing is watched for. */
  streamMaxMs: number;
}

/**
 * One paid answer, produced independently of the connection that asked for it (docs/decisions.md,
 * "Departing clients and redelivery"): chunks are kept as they arrive, the payment is broadcast at
 * the first content, and any number of listeners (the original client, a resend that attaches)
 * read from the start. The moment the payment lands with an error the upstream is aborted and no
 * further content is handed out; a durable-nonce payment's content is held until its transfer lands.
 */
export class PaidGeneration {
  private readonly chunks: ChatCompletionChunk[] = [];
  private readonly assembler = new CompletionAssembler();
  private waiters: Array<() => void> = [];
  private outcome: GenerationEnd | null = null;
  private received: Received = 'none';
  private gone = false;
  private readonly settlement: FirstContentSettlement;
  /** Set the moment the payment landed with an error. */
  private halted: GatewayError | null = null;
  /** Stops watching for a late landing once the answer has ended. */
  private readonly running = new AbortController();
  private originalDone!: () => void;
  /** Resolves when the client that asked has stopped reading (finished or left). */
  readonly originalFinished = new Promise<void>((resolve) => (this.originalDone = resolve));
  readonly ended: Promise<GenerationEnd>;

  constructor(
    source: AsyncIterable<ChatCompletionChunk>,
    private readonly options: GenerationOptions,
  ) {
    this.settlement = new FirstContentSettlement(options.payment, { changed: () => this.wakeAll(), halted: () => this.halt() }, options.streamMaxMs);
    this.ended = this.pump(source);
  }

  /** What the original client got; meaningful once `originalFinished` resolved. */
  get originalReceived(): Received {
    return this.received;
  }

  /** The receipt's `delivery` for an answer, from what the original client got. */
  delivery(end: Extract<GenerationEnd, { kind: 'answer' }>): Delivery {
    if (this.received === 'none') return 'client_disconnected';
    return this.received === 'all' && end.whole ? 'complete' : 'partial';
  }

  /** Whether the original client left before the whole answer reached it (a resend may then have it). */
  get originalGone(): boolean {
    return this.gone;
  }

  /** The original client left: what it got so far is what it received. */
  originalLeft(): void {
    if (this.received !== 'all') this.gone = true;
    this.originalDone();
  }

  /** The original client received the whole JSON answer (or all there was). */
  originalReceivedAll(): void {
    this.received = 'all';
    this.originalDone();
  }

  /**
   * Resolves once content may reach a client (its payment broadcast, a durable-nonce transfer
   * landed), or once there will be none (the generation failed, or its payment landed with an
   * error: the listeners say which); rejects with 402 `payment.unconfirmed` when a durable-nonce
   * transfer did not land within the confirmation window.
   */
  async contentReleased(): Promise<void> {
    for (;;) {
      if (this.halted || this.outcome?.kind === 'error' || this.settlement.release === 'open') return;
      if (this.settlement.release === 'unconfirmed') throw paymentErrors.unconfirmed();
      await this.change();
    }
  }

  /** A held transfer was seen landed after its window (a resend asked): its content may go out now. */
  markLanded(): void {
    if (this.settlement.markLanded()) this.wakeAll();
  }

  /**
   * Every chunk from the start, then the end: an error (stream cut, settlement failed) is thrown
   * after the chunks that arrived, so a stream ends with an error event rather than [DONE]; a
   * payment that landed with an error stops the chunks at once. `original` marks the listener
   * whose progress is the receipt's delivery.
   */
  async *listen(original: boolean): AsyncGenerator<ChatCompletionChunk> {
    let index = 0;
    let finished = false;
    try {
      for (;;) {
        if (this.halted) throw this.halted;
        if (this.outcome?.kind === 'error') break;
        if (this.settlement.release === 'unconfirmed') throw paymentErrors.unconfirmed();
        if (this.settlement.release === 'open' && index < this.chunks.length) {
          const chunk = this.chunks[index++];
          yield chunk;
          if (original && carriesContent(chunk)) this.received = 'some';
          continue;
        }
        if (this.settlement.release === 'open' && this.outcome) break;
        await this.change();
      }
      finished = true;
      if (original && this.chunks.length > 0) this.received = 'all';
      const end = this.outcome as GenerationEnd;
      if (end.kind === 'error') throw end.error;
      if (end.error) throw end.error;
    } finally {
      if (original && !finished) this.originalLeft();
      else if (original) this.originalDone();
    }
  }

  private async pump(source: AsyncIterable<ChatCompletionChunk>): Promise<GenerationEnd> {
    const { payment, upstream } = this.options;
    let cut: GatewayError | null = null;
    // Whether content began: an exact payment is broadcast then; an escrow deposit's claim becomes owed then.
    let started = false;
    try {
      for await (const upstreamChunk of source) {
        const chunk = { ...upstreamChunk, model: this.options.modelId };
        if (!started && carriesContent(chunk)) {
          await this.broadcast();
          started = true;
        }
        this.assembler.add(chunk);
        this.push(chunk);
      }
    } catch (err) {
      cut = asGatewayError(err, upstream.signal);
    }
    try {
      if (!started) {
        // A finished answer with no content at all is still the answer that was paid for.
        if (cut === null && this.assembler.result() !== null) await this.broadcast();
        else throw cut ?? new GatewayError('upstream.stream_empty', 'the upstream stream ended before the answer began');
      }
    } catch (err) {
      upstream.abort(err);
      await payment.release();
      return this.finish({ kind: 'error', error: asGatewayError(err, upstream.signal) });
    }
    const completion = this.assembler.result();
    const settlement = await payment.settled();
    const whole = completion !== null && cut === null;
    const error =
      settlement.status === 'failed' ? paymentErrors.reverted() : whole ? null : (cut ?? new GatewayError('upstream.stream_incomplete', 'the upstream stream ended before the answer was complete'));
    return this.finish({ kind: 'answer', completion: completion ?? this.assembler.snapshot(), whole, settlement, error });
  }

  /** At the first content: the request timeout stops applying and the payment settles as FirstContentSettlement says (a refusal throws). */
  private async broadcast(): Promise<void> {
    const { upstream } = this.options;
    if (upstream.signal.aborted) throw upstream.signal.reason;
    this.options.onBroadcast();
    await this.settlement.broadcast(this.options.modelId, this.running.signal);
  }

  /** The payment landed with an error: the upstream is aborted and no further content is handed out. */
  private halt(): void {
    this.halted = paymentErrors.reverted();
    this.options.upstream.abort(this.halted);
    this.wakeAll();
  }

  private push(chunk: ChatCompletionChunk): void {
    this.chunks.push(chunk);
    this.wakeAll();
  }

  private finish(end: GenerationEnd): GenerationEnd {
    this.outcome = end;
    this.running.abort();
    this.wakeAll();
    return end;
  }

  private change(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** The error to report for a failed or cut upstream call: the reason it was stopped for, if it was. */
function asGatewayError(err: unknown, signal: AbortSignal): GatewayError {
  return signal.aborted && signal.reason instanceof GatewayError ? signal.reason : streamFailure(err);
}
