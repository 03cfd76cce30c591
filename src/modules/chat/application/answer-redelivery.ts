import { Injectable } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import type { PaymentReplayed } from '../../payments/domain/payment-errors';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import type { ChatPlan } from '../domain/chat-plan';
import { completionChunks } from '../domain/completion-stream';
import { requestFingerprint } from '../domain/request-fingerprint';
import type { CompletionCaller, CompletionOutcome, ServedAnswer } from './completion-outcome';
import { answerOf } from './paid-generation';
import { PaidGenerations } from './paid-generations';

/**
 * A paid answer given again to the resend of a payment already used (docs/decisions.md,
 * "Departing clients and redelivery"), in the form the resend asks, with no second charge: the
 * same request (by fingerprint) whose answer is still running or was kept.
 */
@Injectable()
export class AnswerRedelivery {
  constructor(
    private readonly generations: PaidGenerations,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(AnswerRedelivery.name);
  }

  /** The kept or running answer for `replayed`'s payment, or null when there is none for this request. */
  async resend(plan: ChatPlan, replayed: PaymentReplayed, caller: CompletionCaller): Promise<CompletionOutcome | null> {
    const again = await this.generations.redeliver(replayed.replayKey, requestFingerprint(plan.request));
    if (!again) return null;
    this.logger.info({ request_id: caller.requestId }, 'paid answer redelivered');
    const model = plan.candidates[0].model;
    const headers: Record<string, string> = { 'X-Gw-Redelivered': 'true' };
    if (again.receiptPath) headers['X-Gw-Receipt'] = again.receiptPath;
    const served = (body: ServedAnswer['body']): CompletionOutcome => ({ kind: 'served', plan, served: { model, fallback: false, cache: 'miss', body }, headers, paymentStatus: null });
    if (plan.request.stream === true) return served({ kind: 'stream', chunks: again.kind === 'live' ? again.generation.listen(false) : keptChunks(again.completion, again.whole) });
    return served({ kind: 'json', completion: again.kind === 'live' ? answerOf(await again.generation.ended) : again.completion });
  }
}

/** A kept answer as a stream: one that was cut ends with the error event its first client got, never [DONE]. */
async function* keptChunks(completion: ChatCompletion, whole: boolean): AsyncGenerator<ChatCompletionChunk> {
  yield* completionChunks(completion, true);
  if (!whole) throw new GatewayError('upstream.stopped_mid_stream', 'the upstream provider stopped mid-stream; this is all of the answer that was paid for');
}
