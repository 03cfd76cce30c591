import { GatewayError } from '../../../errors/gateway-error';
import type { Settlement } from '../../payments/application/accepted-payment';
import type { PaidPayment } from '../../payments/application/paid-payment';
import type { Delivery } from '../../payments/domain/receipt';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import { carriesContent, CompletionAssembler } from '../domain/completion-stream';
import { streamFailure } from '../domain/mid-stream-error';

/** How a paid generation ended: with an answer (whole, or cut after its payment was broadcast), or with an error and nothing charged. */
export type GenerationEnd = { kind: 'answer'; completion: ChatCompletion; whole: boolean; settlement: Settlement; error: GatewayError | null } | { kind: 'error'; error: GatewayError };

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
}

/**
 * One paid answer, produced independently of the connection that asked for it (docs/decisions.md,
 * "Departing clients and redelivery"): chunks are kept as they arrive, the payment is broadcast at the first content, and
 * any number of listeners (the original client, a resend that attaches) read from the start.
 */
export class PaidGeneration {
  private readonly chunks: ChatCompletionChunk[] = [];
  private readonly assembler = new CompletionAssembler();
  private waiters: Array<() => void> = [];
  private outcome: GenerationEnd | null = null;
  private received: Received = 'none';
  private gone = false;
  private originalDone!: () => void;
  /** Resolves when the client that asked has stopped reading (finished or left). */
  readonly originalFinished = new Promise<void>((resolve) => (this.originalDone = resolve));
  readonly ended: Promise<GenerationEnd>;

  constructor(
    source: AsyncIterable<ChatCompletionChunk>,
    private readonly options: GenerationOptions,
  ) {
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
   * Every chunk from the start, then the end: an error (stream cut, settlement failed) is thrown
   * after the chunks that arrived, so a stream ends with an error event rather than [DONE].
   * `original` marks the listener whose progress is the receipt's delivery.
   */
  async *listen(original: boolean): AsyncGenerator<ChatCompletionChunk> {
    let index = 0;
    let finished = false;
    try {
      for (;;) {
        if (index < this.chunks.length) {
          const chunk = this.chunks[index++];
          yield chunk;
          if (original && carriesContent(chunk)) this.received = 'some';
          continue;
        }
        if (this.outcome) break;
        await new Promise<void>((resolve) => this.waiters.push(resolve));
      }
      finished = true;
      if (original && this.chunks.length > 0) this.received = 'all';
      const end = this.outcome;
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
    // Whether content began: an exact payment is broadcast then; an escrow deposit, settled before, has something to claim from then.
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
      settlement.status === 'failed'
        ? new GatewayError('payment.settlement_reverted', 'the payment landed on chain with an error and moved no funds; nothing was charged')
        : whole
          ? null
          : (cut ?? new GatewayError('upstream.stream_incomplete', 'the upstream stream ended before the answer was complete'));
    return this.finish({ kind: 'answer', completion: completion ?? this.assembler.snapshot(), whole, settlement, error });
  }

  /** At the first content: the request timeout stops applying and the payment goes to the chain (a refusal throws). */
  private async broadcast(): Promise<void> {
    const { upstream, payment } = this.options;
    if (upstream.signal.aborted) throw upstream.signal.reason;
    this.options.onBroadcast();
    await payment.broadcast(this.options.modelId);
  }

  private push(chunk: ChatCompletionChunk): void {
    this.chunks.push(chunk);
    this.wakeAll();
  }

  private finish(end: GenerationEnd): GenerationEnd {
    this.outcome = end;
    this.wakeAll();
    return end;
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
