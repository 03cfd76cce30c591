import type { StageTiming } from '../../../core/stage-timing';
import type { Challenge } from '../../payments/application/payment-challenges';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import type { RequestAdjustments } from '../../providers/ports/llm-provider';
import type { CatalogModel } from '../../routing/domain/catalog';
import { CHAT_DISCOVERY } from '../domain/chat-discovery';
import type { ChatPlan } from '../domain/chat-plan';

export const CHAT_PATH = '/v1/chat/completions';
export const MESSAGES_PATH = '/v1/messages';

/**
 * The wire surface a request came in on (docs/decisions.md, "One pipeline, wire codecs at the
 * edge"): the resource its payment buys and its receipts name, what its 402 advertises beside the
 * offers, and its own response cache entries. Every window is shared between surfaces.
 */
export interface CompletionSurface {
  path: string;
  /** The 402's `extensions`: chat's `bazaar` (spec 2.4 gives it to chat alone). */
  extensions?: Readonly<Record<string, unknown>>;
  /** Whether a bare Anthropic model id (`claude-haiku-4-5-20251001`) names its catalog entry, as coding agents send them. */
  bareAnthropicIds: boolean;
}

export const CHAT_SURFACE: CompletionSurface = { path: CHAT_PATH, extensions: CHAT_DISCOVERY, bareAnthropicIds: false };
export const MESSAGES_SURFACE: CompletionSurface = { path: MESSAGES_PATH, bareAnthropicIds: true };

/** The caller as the HTTP edge (or another adapter) knows it, whatever wire format it spoke. */
export interface CompletionCaller {
  surface: CompletionSurface;
  requestId: string;
  /** The TCP peer address; 'unknown' when the socket had none. */
  clientAddress: string;
  signal: AbortSignal;
  /** The raw PAYMENT-SIGNATURE header, if any. */
  paymentHeader: string | undefined;
  /** The request body's size in bytes: what it costs in the client's unpaid budget. */
  bodyBytes: number;
  /** The body as received: a channel voucher is bound to its SHA-256. */
  rawBody: Uint8Array;
  /** A valid X-Session-Id, if any. */
  sessionId: string | undefined;
  /** Where upstream and payment time are recorded for the metrics. */
  timing: StageTiming;
  /** Stops GW_REQUEST_TIMEOUT_SECS from cutting this request (its payment was broadcast). */
  suspendTimeout: () => void;
  /** The request accepted a payment with this receipt: whatever error ends it from now on (a 408, a 503) names it. */
  noteReceipt: (receiptPath: string) => void;
}

/**
 * What answered and how; the body is a whole completion or a stream that ends after everything is
 * recorded. Streams carry every chunk, usage included: what the client asked to see is the codec's
 * to choose.
 */
export interface ServedAnswer {
  model: CatalogModel;
  fallback: boolean;
  cache: 'hit' | 'miss';
  /** What the answering provider dropped or rewrote (asked only for the debug headers); absent when no provider was called. */
  adjustments?: () => RequestAdjustments;
  body: { kind: 'json'; completion: ChatCompletion } | { kind: 'stream'; chunks: AsyncIterable<ChatCompletionChunk> };
}

/** What the pipeline decided: a 402 quote, or an answer with the headers it carries. */
export type CompletionOutcome =
  { kind: 'quote'; plan: ChatPlan; challenge: Challenge } | { kind: 'served'; plan: ChatPlan; served: ServedAnswer; headers: Record<string, string>; paymentStatus: string | null };
