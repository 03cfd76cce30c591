import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { envelopeError } from './error-envelope';
import { channelIdBytes, readCurrentSlot, readLastCumulative, type Fetch } from './gateway-routes';
import { a2aDigestInput } from './messages';
import { channelPaymentPayload, channelPaymentSignature, type SignedVoucher } from './payment-header';
import { readQuote, readTaskQuote, type ChannelQuote } from './quote';
import { readRpcRefusal } from './rpc-refusal';
import { SerialQueue } from './serial-queue';
import type { ChannelSigner } from './signer';

const LAST_CUMULATIVE_HEADER = 'X-Gw-Channel-Last-Cumulative';
const DIGITS = /^[0-9]+$/;
/** The spec's advice: about 1,500 slots (some ten minutes) past the current slot. */
const DEFAULT_EXPIRY_SLOTS = 1_500n;
const DEFAULT_BUSY_RETRIES = 3;
/** A busy channel's wait when `retry-after` is missing or unreadable (the gateway sends 1). */
const DEFAULT_RETRY_AFTER_SECS = 1;
/** Bounds the wait a wrong `retry-after` could ask for. */
const MAX_RETRY_AFTER_SECS = 60;

export interface ChannelFetchOptions {
  /** base58 of the channel's 32-byte id. */
  readonly channelId: string;
  /** The channel's session key. */
  readonly signer: ChannelSigner;
  /** The gateway's base URL. */
  readonly gateway: string | URL;
  /** Atomic USDC drawn so far, if known; else it is read from `GET /v1/channel/{id}` before the first voucher. */
  readonly lastCumulative?: bigint;
  /** How many slots past the current one a voucher expires [1,500]. */
  readonly expirySlots?: bigint;
  /** The first voucher's nonce [0]; each voucher takes the next. */
  readonly firstNonce?: bigint;
  /** How many times a busy channel (429 `rate_limit.channel_busy`) is waited for [3]. */
  readonly busyRetries?: number;
}

/** A fetch that pays each 402 with a voucher on one channel, one request at a time. */
export type ChannelFetch = Fetch & {
  /** Atomic USDC drawn as far as this client knows; undefined before it read or drew anything. */
  lastCumulative(): bigint | undefined;
  /** Reads `last_cumulative` from the gateway (between requests, never during one). */
  resync(): Promise<bigint>;
  /**
   * Pays an A2A task awaiting payment (`input-required`, its quote in `x402.payment.required`):
   * `submit` sends `message/send` on the task with `x402.payment.status: payment-submitted` and the
   * given `x402.payment.payload`, and returns the task or throws the JSON-RPC error (as
   * `@a2a-js/sdk` does). The voucher binds the task id (spec 4.8), and is serialised with the
   * channel's other draws.
   */
  payTask<T>(task: unknown, submit: (payload: Record<string, unknown>) => Promise<T>): Promise<T>;
};

/**
 * Wraps `fetch` so that a 402 is paid from the channel: the request goes unpaid first; a 402's
 * quote (its `exact` offer's amount) is paid by a voucher of cumulative = last + quote, bound to
 * the body's SHA-256. Requests are serialised, since the gateway serves one draw per channel at a
 * time; a request returns once its answer's head arrived (a stream's body is the caller's), so a
 * request sent while the previous stream is still being served meets a busy channel and waits.
 */
export function wrapFetchWithChannel(fetch: Fetch, options: ChannelFetchOptions): ChannelFetch {
  const session = new ChannelSession(fetch, options);
  const queue = new SerialQueue();
  const channelFetch = async (input: string | URL | Request, init?: RequestInit) => {
    // The Request turns any body into the bytes fetch would send; they are read once, digested and sent as they are.
    const request = new Request(input, init);
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    return queue.run(() => session.send(request, { ...init, method: request.method, body, signal: request.signal }));
  };
  return Object.assign(channelFetch, {
    lastCumulative: () => session.lastCumulative,
    resync: () => queue.run(() => session.resync()),
    payTask: <T>(task: unknown, submit: (payload: Record<string, unknown>) => Promise<T>) => queue.run(() => session.payTask(task, submit)),
  });
}

/** How many times each kind of refusal may still be answered with another voucher, for one request. */
interface RetryBudget {
  resync: number;
  expiry: number;
  busy: number;
}

/** One channel's state as the client knows it: the cumulative drawn, the slot, the next nonce. */
class ChannelSession {
  lastCumulative: bigint | undefined;
  private readonly channelId: Uint8Array;
  private readonly expirySlots: bigint;
  private readonly busyRetries: number;
  private currentSlot: bigint | undefined;
  private nonce: bigint;

  constructor(
    private readonly fetch: Fetch,
    private readonly options: ChannelFetchOptions,
  ) {
    this.channelId = channelIdBytes(options.channelId);
    this.lastCumulative = options.lastCumulative;
    this.expirySlots = options.expirySlots ?? DEFAULT_EXPIRY_SLOTS;
    this.busyRetries = options.busyRetries ?? DEFAULT_BUSY_RETRIES;
    this.nonce = options.firstNonce ?? 0n;
  }

  async resync(): Promise<bigint> {
    this.lastCumulative = await readLastCumulative(this.fetch, this.options.gateway, this.options.channelId);
    return this.lastCumulative;
  }

  /** `init` carries the body as bytes, so every attempt sends the same ones. */
  async send(request: Request, init: RequestInit & { body: Uint8Array | undefined }): Promise<Response> {
    const attempt = (payment?: string) => this.fetch(request.url, { ...init, headers: withPayment(request.headers, payment) });
    const unpaid = await attempt();
    if (unpaid.status !== 402) return unpaid;
    const quote = await readQuote(unpaid);
    if (quote === null) return unpaid;
    await unpaid.body?.cancel();
    const requestDigest = createHash('sha256')
      .update(init.body ?? new Uint8Array())
      .digest();
    return this.pay(quote, requestDigest, attempt, request.signal);
  }

  private async pay(quote: ChannelQuote, requestDigest: Uint8Array, attempt: (payment: string) => Promise<Response>, signal: AbortSignal): Promise<Response> {
    const budget: RetryBudget = { resync: 1, expiry: 1, busy: this.busyRetries };
    for (;;) {
      const voucher = await this.voucher(quote.amount, requestDigest);
      const response = await attempt(channelPaymentSignature(quote, voucher));
      // A 2xx is a draw (a stream's included: the status tells, its body stays unread).
      if (response.ok) {
        this.lastCumulative = voucher.cumulative;
        return response;
      }
      // Only refusals after the signature check carry the header; anything else is the caller's to handle.
      const last = response.headers.get(LAST_CUMULATIVE_HEADER);
      if (last === null || !DIGITS.test(last)) return response;
      this.lastCumulative = BigInt(last);
      const { code } = envelopeError(
        await response
          .clone()
          .json()
          .catch(() => null),
      );
      if (!(await this.recover(code, retryAfterSecs(response), budget, signal))) return response;
      await response.body?.cancel();
    }
  }

  async payTask<T>(task: unknown, submit: (payload: Record<string, unknown>) => Promise<T>): Promise<T> {
    const quote = readTaskQuote(task);
    const taskId = (task as { id?: unknown }).id;
    if (quote === null || typeof taskId !== 'string') throw new TypeError('the task holds no id, or no x402.payment.required quote with an exact offer');
    const requestDigest = createHash('sha256').update(a2aDigestInput(taskId)).digest();
    const budget: RetryBudget = { resync: 1, expiry: 1, busy: this.busyRetries };
    for (;;) {
      const voucher = await this.voucher(quote.amount, requestDigest);
      try {
        const paid = await submit(channelPaymentPayload(quote, voucher));
        // A completed task drew, unless it completed without payment status (its draw lost a race with a close: nothing taken).
        if (paymentStatus(paid) === 'payment-completed') this.lastCumulative = voucher.cumulative;
        return paid;
      } catch (err) {
        // Only refusals after the signature check carry last_cumulative (-32007; -32603 while busy); anything else is the caller's.
        const refusal = readRpcRefusal(err);
        if (refusal?.lastCumulative === undefined) throw err;
        this.lastCumulative = refusal.lastCumulative;
        if (!(await this.recover(refusal.reason, DEFAULT_RETRY_AFTER_SECS, budget))) throw err;
      }
    }
  }

  /** Whether another voucher may answer the refusal `code`, after what it asks for (the new cumulative is already taken). */
  private async recover(code: string | undefined, retryAfterSecs: number, budget: RetryBudget, signal?: AbortSignal): Promise<boolean> {
    switch (code) {
      case 'payment.channel_stale':
      case 'payment.channel_wrong_delta':
        return budget.resync-- > 0;
      case 'payment.channel_expired':
        if (budget.expiry-- <= 0) return false;
        this.currentSlot = await readCurrentSlot(this.fetch, this.options.gateway);
        return true;
      case 'rate_limit.channel_busy':
        if (budget.busy-- <= 0) return false;
        await sleep(retryAfterSecs * 1000, undefined, { signal });
        return true;
      default:
        return false;
    }
  }

  private async voucher(quote: bigint, requestDigest: Uint8Array): Promise<SignedVoucher> {
    const lastCumulative = this.lastCumulative ?? (await this.resync());
    this.currentSlot ??= await readCurrentSlot(this.fetch, this.options.gateway);
    const fields = { channelId: this.channelId, cumulative: lastCumulative + quote, expirySlot: this.currentSlot + this.expirySlots, nonce: this.nonce++, requestDigest };
    return { ...fields, signature: this.options.signer.signVoucher(fields) };
  }
}

function withPayment(headers: Headers, payment: string | undefined): Headers {
  const sent = new Headers(headers);
  if (payment !== undefined) sent.set('PAYMENT-SIGNATURE', payment);
  return sent;
}

function retryAfterSecs(response: Response): number {
  const value = response.headers.get('retry-after');
  return value !== null && DIGITS.test(value.trim()) ? Math.min(Number(value.trim()), MAX_RETRY_AFTER_SECS) : DEFAULT_RETRY_AFTER_SECS;
}

function paymentStatus(task: unknown): unknown {
  return (task as { status?: { message?: { metadata?: Record<string, unknown> } } } | null)?.status?.message?.metadata?.['x402.payment.status'];
}
