import { GatewayError } from '../../../errors/gateway-error';
import type { PaidPayment } from '../../payments/application/paid-payment';
import { paymentErrors } from '../../payments/domain/payment-errors';
import { StreamCapReached } from '../domain/stream-cap';
import type { PaidGeneration } from './paid-generation';

/** The request was cancelled because its client went away (not because it timed out). */
export function clientLeft(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { name?: unknown } | undefined)?.name === 'ClientDisconnected';
}

/**
 * One paid upstream call, from its payment's acceptance to the end of its answer, and what may
 * stop it: until the broadcast, the request timeout (its own timer, which outlives the client's
 * connection), the edge cancelling the request, or the payment's blockhash about to expire (its
 * transfer could no longer land); from the first chunk, the stream cap; shutdown.
 * The client leaving stops nothing: its generation is told, so the answer is kept for it.
 */
export class PaidCall {
  readonly upstream = new AbortController();
  private attached: { generation: PaidGeneration; fingerprint: string } | null = null;
  private readonly expiry: NodeJS.Timeout;
  private cap: NodeJS.Timeout | undefined;
  private readonly unwatch: () => void;

  constructor(
    readonly payment: PaidPayment,
    private readonly signal: AbortSignal,
    requestTimeoutMs: number,
  ) {
    this.expiry = setTimeout(() => this.stopUnlessBroadcast(new GatewayError('request.timeout', `request exceeded the ${requestTimeoutMs / 1000} s timeout`)), requestTimeoutMs);
    this.unwatch = payment.whenExpiring(() => this.stopUnlessBroadcast(paymentErrors.expiredBeforeAnswer()));
    if (signal.aborted) this.onAbort();
    else signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The running generation and the fingerprint of the request it answers, once started. */
  get running(): { generation: PaidGeneration; fingerprint: string } | null {
    return this.attached;
  }

  /** The answer has started (its first chunk is in): from now on the stream cap bounds it. */
  attach(generation: PaidGeneration, fingerprint: string, streamMaxMs: number): void {
    this.attached = { generation, fingerprint };
    this.cap = setTimeout(() => this.upstream.abort(new StreamCapReached(streamMaxMs)), streamMaxMs);
    if (clientLeft(this.signal)) generation.originalLeft();
  }

  /** Stops the upstream call; once the payment was broadcast only shutdown and the stream cap may. */
  stop(reason: GatewayError): void {
    this.upstream.abort(reason);
  }

  dispose(): void {
    clearTimeout(this.expiry);
    clearTimeout(this.cap);
    this.unwatch();
    this.signal.removeEventListener('abort', this.onAbort);
  }

  private readonly onAbort = (): void => {
    if (clientLeft(this.signal)) this.attached?.generation.originalLeft();
    else this.stopUnlessBroadcast(this.signal.reason);
  };

  private stopUnlessBroadcast(reason: unknown): void {
    if (!this.payment.broadcasted) this.upstream.abort(reason);
  }
}
