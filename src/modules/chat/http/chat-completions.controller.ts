import { Controller, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GatewayConfig } from '../../../config/gateway-config';
import { CHAT_SURFACE, type CompletionOutcome } from '../application/completion-outcome';
import { CompletionPipeline } from '../application/completion-pipeline';
import { openAiAnswer, openAiChunks } from './openai-codec';
import { ApiChatCompletions } from './chat-openapi';
import { parseChatRequest } from './chat-request-validator';
import { sessionId, setDebugHeaders } from './chat-response-headers';
import { endEventStream, openEventStream, writeEvents, type EventStreamTimers } from './sse-writer';
import { BodyLimit, CHAT_BODY_LIMIT } from '../../../http/body-limits';

/** POST /v1/chat/completions: read the OpenAI request, hand it to the completion pipeline, write what it decided in OpenAI's format. */
@Controller('v1/chat')
export class ChatCompletionsController {
  /** The longest a stream may take to write (the stream cap, plus the confirmation a paid one waits for before [DONE]), and its keep-alive interval. */
  private readonly streamTimers: EventStreamTimers;

  constructor(
    private readonly pipeline: CompletionPipeline,
    config: GatewayConfig,
  ) {
    this.streamTimers = { deadlineMs: config.http.streamMaxMs + config.settlement.confirmMs, keepAliveMs: config.http.sseKeepAliveMs };
  }

  @Post('completions')
  @BodyLimit(CHAT_BODY_LIMIT)
  @ApiChatCompletions()
  async create(@Req() req: Request, @Res() res: Response): Promise<void> {
    const startedAt = performance.now();
    const request = parseChatRequest(req.body);
    const session = sessionId(req.headers['x-session-id']);
    if (session) res.setHeader('X-Session-Id', session);
    const payment = req.headers['payment-signature'];
    const outcome = await this.pipeline.handle(request, {
      surface: CHAT_SURFACE,
      requestId: req.gw.id,
      clientAddress: req.gw.clientAddress,
      signal: req.gw.signal,
      paymentHeader: typeof payment === 'string' ? payment : undefined,
      bodyBytes: req.rawBody?.length ?? 0,
      sessionId: session,
      timing: req.gw.timing,
      suspendTimeout: () => req.gw.suspendTimeout(),
      noteReceipt: (receiptPath) => req.gw.noteReceipt(receiptPath),
    });
    const debug = req.headers['x-gw-debug'] === 'true';
    await this.render(req, res, outcome, debug ? startedAt : null);
  }

  private async render(req: Request, res: Response, outcome: CompletionOutcome, debugStartedAt: number | null): Promise<void> {
    // Answered already (the request timed out) or abandoned: nothing more may be written. A paid
    // answer learns it from the request's signal, which aborted then.
    if (res.headersSent || res.destroyed) return;
    if (outcome.kind === 'quote') {
      if (debugStartedAt !== null) setDebugHeaders(res, outcome.plan, debugStartedAt);
      res.setHeader('PAYMENT-REQUIRED', outcome.challenge.header);
      res.status(402).json(outcome.challenge.body);
      return;
    }
    const { served, plan, headers } = outcome;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (served.fallback) res.setHeader('X-Gw-Fallback', 'true');
    if (debugStartedAt !== null) setDebugHeaders(res, plan, debugStartedAt, served, outcome.paymentStatus ?? undefined);
    if (served.body.kind === 'json') {
      res.status(200).json(openAiAnswer(served.body.completion));
      return;
    }
    openEventStream(res);
    // A started stream is bounded by the stream cap and the upstream idle timeout, no longer by the request timeout.
    req.gw.suspendTimeout();
    // A failure midway propagates to the error filter, which ends the stream with an error event, never [DONE].
    await writeEvents(res, openAiChunks(served.body.chunks, plan.request), this.streamTimers);
    endEventStream(res);
  }
}
