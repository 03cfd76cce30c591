import type { Request, Response } from 'express';
import type { GatewayConfig } from '../../../config/gateway-config';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import type { ChatRequest } from '../../providers/domain/chat-request';
import type { CompletionCaller, CompletionOutcome, CompletionSurface } from '../application/completion-outcome';
import type { CompletionPipeline } from '../application/completion-pipeline';
import type { UnpaidBudget } from '../../rate-limits/application/unpaid-budget';
import { writeJson } from '../../../http/json-response';
import { sessionId, setDebugHeaders } from './chat-response-headers';
import { endEventStream, openEventStream, writeEvents, type EventFraming, type EventStreamTimers } from './sse-writer';

/** A wire format's output half: the answer, the stream's events and how they are written, and what ends a stream that succeeded. */
export interface WireCodec {
  answer: (completion: ChatCompletion) => unknown;
  events: (chunks: AsyncIterable<ChatCompletionChunk>, request: ChatRequest) => AsyncIterable<unknown>;
  framing: EventFraming;
  /** Written once everything before it succeeded (OpenAI's `[DONE]`), or nothing. */
  terminator: string | null;
}

/**
 * What every completion route does around its codec (docs/decisions.md, "One pipeline, wire codecs
 * at the edge"): the caller as the pipeline knows it, then the 402 quote, or the answer in the
 * codec's format with the headers the pipeline decided.
 */
export class CompletionEndpoint {
  /** The longest a stream may take to write (the stream cap, plus the confirmation a paid one waits for before its end), and its keep-alive interval. */
  private readonly streamTimers: EventStreamTimers;

  constructor(
    private readonly pipeline: CompletionPipeline,
    config: GatewayConfig,
    private readonly surface: CompletionSurface,
    private readonly codec: WireCodec,
    private readonly unpaid: UnpaidBudget,
  ) {
    this.streamTimers = { deadlineMs: config.http.streamMaxMs + config.settlement.confirmMs, keepAliveMs: config.http.sseKeepAliveMs };
  }

  /** The request `parse` reads from the body, a refusal counted as unpaid work (UnpaidBudget.validate). */
  read<T>(req: Request, parse: () => T): Promise<T> {
    return this.unpaid.validate(req.gw.clientAddress, bodyBytes(req), parse);
  }

  async serve(req: Request, res: Response, parse: () => ChatRequest): Promise<void> {
    const request = await this.read(req, parse);
    const startedAt = performance.now();
    const outcome = await this.pipeline.handle(request, this.caller(req, res));
    const debug = req.headers['x-gw-debug'] === 'true';
    await this.render(req, res, outcome, debug ? startedAt : null);
  }

  /** The caller as the pipeline knows it; a valid X-Session-Id is echoed. */
  caller(req: Request, res: Response): CompletionCaller {
    const session = sessionId(req.headers['x-session-id']);
    if (session) res.setHeader('X-Session-Id', session);
    const payment = req.headers['payment-signature'];
    return {
      surface: this.surface,
      requestId: req.gw.id,
      clientAddress: req.gw.clientAddress,
      signal: req.gw.signal,
      paymentHeader: typeof payment === 'string' ? payment : undefined,
      bodyBytes: bodyBytes(req),
      rawBody: req.rawBody ?? EMPTY_BODY,
      sessionId: session,
      timing: req.gw.timing,
      suspendTimeout: () => req.gw.suspendTimeout(),
      noteReceipt: (receiptPath) => req.gw.noteReceipt(receiptPath),
    };
  }

  private async render(req: Request, res: Response, outcome: CompletionOutcome, debugStartedAt: number | null): Promise<void> {
    // Answered already (the request timed out) or abandoned: nothing more may be written. A paid
    // answer learns it from the request's signal, which aborted then.
    if (res.headersSent || res.destroyed) return;
    if (outcome.kind === 'quote') {
      if (debugStartedAt !== null) setDebugHeaders(res, outcome.plan, debugStartedAt);
      res.setHeader('PAYMENT-REQUIRED', outcome.challenge.header);
      writeJson(res, 402, outcome.challenge.body);
      return;
    }
    const { served, plan, headers } = outcome;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (served.fallback) res.setHeader('X-Gw-Fallback', 'true');
    if (debugStartedAt !== null) setDebugHeaders(res, plan, debugStartedAt, served, outcome.paymentStatus ?? undefined);
    if (served.body.kind === 'json') {
      writeJson(res, 200, this.codec.answer(served.body.completion));
      return;
    }
    openEventStream(res);
    // A started stream is bounded by the stream cap and the upstream idle timeout, no longer by the request timeout.
    req.gw.suspendTimeout();
    // A failure midway propagates to the error filter, which ends the stream with an error event, never the terminator.
    await writeEvents(res, this.codec.events(served.body.chunks, plan.request), this.streamTimers, this.codec.framing);
    endEventStream(res, this.codec.terminator);
  }
}

/** The bytes of the body as received. */
const EMPTY_BODY = new Uint8Array(0);

function bodyBytes(req: Request): number {
  return req.rawBody?.length ?? 0;
}
