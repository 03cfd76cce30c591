import { randomUUID } from 'node:crypto';
import { decodePaymentRequiredHeader } from '../../../../libs/x402';
import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import { answerCost } from '../../billing/domain/answer-cost';
import { SpendRecorder } from '../../billing/application/spend-recorder';
import { ChatPlanner } from '../../chat/application/chat-planner';
import { dispatchTargets } from '../../chat/application/dispatch-targets';
import { candidatesWithin, quoteOf, type ChatPlan, type PricedCandidate } from '../../chat/domain/chat-plan';
import type { ChatRequest } from '../../providers/domain/chat-request';
import { PromptGuard } from '../../chat/domain/prompt-guard';
import { PaymentAdmission } from '../../payments/application/payment-admission';
import { PaymentOffers } from '../../payments/application/payment-offers';
import { ChannelAvailability } from '../../payments/application/channel-availability';
import { PrepaidPayments, type Prepaid } from '../../payments/application/prepaid-payments';
import type { SchemeName } from '../../payments/domain/schemes';
import { a2aDigestInput } from '../../../../libs/channel-client/messages';
import type { StageTiming } from '../../../core/stage-timing';
import type { ChatCompletion } from '../../providers/domain/chat-completion';
import { UpstreamDispatcher } from '../../providers/application/upstream-dispatcher';
import { RateLimiter } from '../../rate-limits/application/rate-limiter';
import { clientNetwork } from '../../rate-limits/domain/client-network';
import { A2A_ERRORS, A2AError } from '../domain/a2a-errors';
import { CHANNELS_OFF, checkAgainstOffer, dualCasedOffer, submittedPayment } from '../domain/a2a-offer';
import { newTaskId, isTaskId, type A2ATaskRecord } from '../domain/a2a-task';
import { PAYMENT_PAYLOAD, PAYMENT_STATUS, parseUserMessage, taskView, type TaskView } from '../domain/a2a-wire';
import { transition, type TaskState, type TaskTrigger } from '../domain/task-state';
import { TaskLocks, TaskStore } from '../ports/task-store';

export const A2A_PATH = '/a2a';
/** Beyond the serve bound: the verification and the settlement that precede it. */
const LOCK_MARGIN_MS = 120_000;
/** Spec 4.8: `exact` and `escrow` as advertised, a channel voucher unadvertised. */
const A2A_SCHEMES: readonly SchemeName[] = ['exact', 'escrow', 'channel'];

/** The caller as the JSON-RPC controller knows it. */
export interface A2ACaller {
  requestId: string;
  clientAddress: string;
  signal: AbortSignal;
  timing: StageTiming;
  /** Stops GW_REQUEST_TIMEOUT_SECS from cutting the call once its payment is broadcast: its answer is owed. */
  suspendTimeout: () => void;
  /** The payment was accepted with this receipt: whatever error ends the call from now on names it. */
  noteReceipt: (receiptPath: string) => void;
  /** The request body's size in bytes: what it costs in the client's unpaid budget. */
  bodyBytes: number;
}

/**
 * The A2A use cases (spec 3.1, 4.8): `message/send` quotes a new task or pays one, `tasks/get`
 * projects a task by state, `tasks/cancel` cancels one awaiting payment. Payments go through the
 * one payment use case (PrepaidPayments: the same PaymentAcceptance as chat, budgeted payers refused,
 * settled before serving), in the spec's order: prompt guard, replay, the submitted `accepted`
 * against the stored offer, the task's settlement lock, `working` persisted before any funds
 * move, verify and settle, then the provider with the `max_tokens` that priced the quote.
 */
@Injectable()
export class A2ATasks {
  private readonly guard = new PromptGuard();

  constructor(
    private readonly store: TaskStore,
    private readonly locks: TaskLocks,
    private readonly planner: ChatPlanner,
    private readonly dispatcher: UpstreamDispatcher,
    private readonly offers: PaymentOffers,
    private readonly admission: PaymentAdmission,
    private readonly prepaid: PrepaidPayments,
    private readonly channels: ChannelAvailability,
    private readonly limiter: RateLimiter,
    private readonly spend: SpendRecorder,
    private readonly logger: AppLogger,
    private readonly config: GatewayConfig,
  ) {
    logger.setContext(A2ATasks.name);
  }

  /** message/send: a new task and its quote, or the payment of an existing one. */
  async send(params: unknown, caller: A2ACaller): Promise<TaskView> {
    const message = parseUserMessage(params);
    const taskId = (params as { message: { taskId?: unknown } }).message.taskId ?? (params as { taskId?: unknown }).taskId;
    if (taskId === undefined) return this.quote(message.text, message.model, message.maxTokens, caller);
    if (message.metadata[PAYMENT_STATUS] !== 'payment-submitted') throw new A2AError(A2A_ERRORS.invalidParams, `a message on an existing task must carry ${PAYMENT_STATUS}: payment-submitted`);
    return this.pay(await this.load(taskId), message.metadata[PAYMENT_PAYLOAD], caller);
  }

  async get(params: unknown, caller: A2ACaller): Promise<TaskView> {
    await this.limiter.admit([{ key: `a2a:get:${clientNetwork(caller.clientAddress)}`, limit: this.config.a2a.getRateLimit }]);
    return taskView(await this.load(idOf(params)));
  }

  /** Only from `input-required`, and re-checked under the settlement lock: a payment under way keeps it (-32002). */
  async cancel(params: unknown): Promise<TaskView> {
    const task = await this.load(idOf(params));
    refuseUnless(task.state, 'cancel');
    const token = await this.guarded(() => this.locks.acquire(task.id, this.lockMs()));
    if (token === null) throw new A2AError(A2A_ERRORS.taskNotCancelable, 'a payment of this task is under way; it cannot be canceled');
    try {
      const current = await this.load(task.id);
      refuseUnless(current.state, 'cancel');
      const canceled = await this.move(current, 'cancel', {});
      return taskView(canceled);
    } finally {
      await this.locks.release(task.id, token);
    }
  }

  private async quote(text: string, model: string, maxTokens: number | null, caller: A2ACaller): Promise<TaskView> {
    await this.admission.admit(undefined, caller.clientAddress, caller.bodyBytes);
    const plan = this.plan({ model, text, maxTokens });
    const cost = quoteOf(plan);
    if (cost.total === 0n) throw new A2AError(A2A_ERRORS.invalidParams, `model ${model} is free: free models are served on /v1/chat/completions`);
    const challenge = this.offers.quote(A2A_PATH, cost);
    const task: A2ATaskRecord = {
      id: newTaskId(),
      contextId: randomUUID(),
      state: 'input-required',
      request: { model, text, maxTokens },
      offer: { paymentRequired: dualCasedOffer(challenge.body, decodePaymentRequiredHeader(challenge.header).accepts[0]?.extra), amountAtomic: cost.total.toString() },
      receipts: [],
      output: null,
      failure: null,
      updatedAt: Date.now(),
    };
    await this.guarded(() => this.store.create(task, this.config.a2a.taskTtlMs));
    return taskView(task);
  }

  private async pay(task: A2ATaskRecord, payload: unknown, caller: A2ACaller): Promise<TaskView> {
    refuseUnless(task.state, 'payment-submitted');
    const header = submittedPayment(payload);
    // The attempt is counted before the planner and the guard run over the stored text (docs/decisions.md, "Limits before the work"),
    // and that text counts in the unpaid budget beside the message: each attempt reads it again.
    const workBytes = caller.bodyBytes + Buffer.byteLength(task.request.text);
    const attempt = await this.admission.admit(header, caller.clientAddress, workBytes);
    if (attempt === null) throw new Error('a submitted payment is always counted as an attempt');
    const plan = this.plan(task.request);
    const verdict = this.guard.inspect([task.request.text]);
    if (verdict.blocked) throw new A2AError(A2A_ERRORS.invalidParams, 'Request blocked by content policy');
    checkAgainstOffer(payload, task, this.channels.enabled);
    const token = await this.guarded(() => this.locks.acquire(task.id, this.lockMs()));
    if (token === null) throw new A2AError(A2A_ERRORS.internal, 'another payment of this task is being settled; retry shortly', { retryable: true });
    try {
      const current = await this.load(task.id);
      refuseUnless(current.state, 'payment-submitted');
      // Persisted before any funds move: a crash from here on leaves a task that refuses a second payment.
      // It lives at least as long as the lock, so the serve cannot outlast its record.
      const working = await this.move(current, 'payment-submitted', {}, Math.max(this.config.a2a.taskTtlMs, this.lockMs()));
      let prepaid: Prepaid;
      try {
        const cost = quoteOf(plan);
        prepaid = await this.prepaid.settle(
          header,
          attempt,
          {
            path: A2A_PATH,
            cost,
            requestId: caller.requestId,
            clientAddress: caller.clientAddress,
            signal: caller.signal,
            timing: caller.timing,
            model: plan.candidates[0].model.id,
            onBroadcast: caller.suspendTimeout,
            noteReceipt: caller.noteReceipt,
            bodyBytes: workBytes,
            // A voucher binds the task, not this message (spec 4.8): resubmitted unchanged, it pays the same task.
            body: a2aDigestInput(task.id),
          },
          plan.candidates[0].model.id,
          A2A_SCHEMES,
        );
      } catch (err) {
        // Refused before any funds moved: the task waits for a corrected payment.
        await this.move(working, 'settlement-failed-before-funds', {});
        throw paymentFailed(err);
      }
      // A draw is owed only once delivered, but the task keeps its answer for tasks/get: GW_A2A_SERVE_SECS bounds it, as a paid serve.
      if (prepaid.payment.settlesAt === 'after_delivery') caller.suspendTimeout();
      return taskView(await this.serve(working, plan, prepaid, caller));
    } finally {
      await this.locks.release(task.id, token);
    }
  }

  /**
   * The provider, bounded by GW_A2A_SERVE_SECS. A collected payment's failure ends the task `failed`
   * with its receipts; a draw's takes nothing and leaves the task for the same voucher (spec 3.1).
   */
  private async serve(task: A2ATaskRecord, plan: ChatPlan, { payment, settlement }: Prepaid, caller: A2ACaller): Promise<A2ATaskRecord> {
    const receipts = [{ tx_signature: payment.transactionSignature, ...(payment.receiptPath ? { receipt: payment.receiptPath } : {}) }];
    const candidates = candidatesWithin(plan, payment.amountPaid);
    let answered: { completion: ChatCompletion; candidate: PricedCandidate };
    try {
      const signal = AbortSignal.timeout(this.config.a2a.serveMs);
      const { index, reply } = await this.dispatcher.dispatch(dispatchTargets(candidates, plan.request, false), signal, caller.requestId);
      if (reply.kind !== 'json') throw new GatewayError('upstream.unusable_response', 'the provider answered a stream to a JSON request');
      answered = { completion: reply.completion, candidate: candidates[index] };
      // There is an answer to deliver: an escrow deposit's claim becomes owed now (an exact payment was broadcast before serving).
      if (!payment.broadcasted) await payment.broadcast(answered.candidate.model.id);
    } catch (err) {
      this.logger.warn({ err, task: task.id, request_id: caller.requestId }, 'a2a provider failed after payment');
      // An escrow deposit delivered nothing: never claimed (it refunds at expiry); an exact payment was settled before serving; a draw is not taken.
      await payment.release();
      if (payment.settlesAt === 'after_delivery') {
        await this.settle(task, 'channel-not-drawn', {});
        throw new A2AError(A2A_ERRORS.providerError, 'the provider failed or timed out; no draw was taken from the channel: resubmit the same voucher', { retryable: true });
      }
      // So it is charged all the same, and its spend row says so, as a paid tool's does (spec 4.7).
      if (payment.settlesAt === 'before_handler') {
        this.spend.answer({
          requestId: caller.requestId,
          payer: payment.payer,
          model: plan.candidates[0].model,
          usage: undefined,
          estimatedInputTokens: plan.inputTokens,
          charged: payment.amountPaid,
        });
      }
      return this.settle(task, 'provider-failed-after-payment', { receipts, failure: 'the provider failed after the payment was collected' });
    }
    const { completion, candidate } = answered;
    await payment.recordDelivery('complete');
    const { usage } = completion;
    const charged = await payment.charge(answerCost(usage, candidate.model.rates), { requestId: caller.requestId, model: candidate.model, usage, estimatedInputTokens: plan.inputTokens });
    const output = completion.choices.map((choice) => choice.message.content ?? '').join('\n');
    // Spec 3.1: a draw that lost its race with a close took nothing; the task completes without payment status or receipts.
    if (payment.settlesAt === 'after_delivery' && charged === 0n) return this.settle(task, 'provider-delivered', { receipts: [], output });
    // A delivered task's receipt reads as x402's SettleResponse too, once its transfer confirmed: x402 has no "pending" (the receipt says it), and a draw has no transaction.
    const proven =
      settlement.status === 'settled' && payment.scheme !== 'channel'
        ? receipts.map((receipt) => ({ ...receipt, success: true as const, transaction: payment.transactionSignature, network: this.config.solana.network }))
        : receipts;
    return this.settle(task, 'provider-delivered', { receipts: proven, output });
  }

  /**
   * The paid task's last move. Its payment is collected and its answer (or failure) in hand, so a
   * store that cannot record it must not cost the payer the answer: the caller gets the task as it
   * ended, and the record is written again if it went missing.
   */
  private async settle(task: A2ATaskRecord, trigger: TaskTrigger, changes: Partial<A2ATaskRecord>): Promise<A2ATaskRecord> {
    try {
      return await this.move(task, trigger, changes);
    } catch (err) {
      const step = transition(task.state, trigger);
      if ('refused' in step) throw err;
      const ended: A2ATaskRecord = { ...task, ...changes, state: step.to, updatedAt: Date.now() };
      this.logger.error({ err, task: task.id }, 'a paid task could not be recorded as it ended; answered anyway');
      await this.store.create(ended, this.config.a2a.taskTtlMs).catch(() => undefined);
      return ended;
    }
  }

  private plan(request: A2ATaskRecord['request']): ChatPlan {
    const chat: ChatRequest = { model: request.model, messages: [{ role: 'user', content: request.text }], ...(request.maxTokens === null ? {} : { max_tokens: request.maxTokens }) };
    try {
      return this.planner.plan(chat);
    } catch (err) {
      if (err instanceof GatewayError && err.code === 'chat.model_not_found') throw new A2AError(A2A_ERRORS.modelNotFound, err.message);
      if (err instanceof GatewayError && err.type === 'bad_request') throw new A2AError(A2A_ERRORS.invalidParams, err.message);
      throw err;
    }
  }

  /** The next state, persisted only if the task is still where it was (compare-and-set). */
  private async move(task: A2ATaskRecord, trigger: TaskTrigger, changes: Partial<A2ATaskRecord>, ttlMs = this.config.a2a.taskTtlMs): Promise<A2ATaskRecord> {
    const step = transition(task.state, trigger);
    if ('refused' in step) throw A2AError.from(step.refused);
    const next: A2ATaskRecord = { ...task, ...changes, state: step.to, updatedAt: Date.now() };
    const replaced = await this.guarded(() => this.store.replace(next, task.state, ttlMs));
    if (!replaced) throw new A2AError(A2A_ERRORS.internal, 'the task changed meanwhile; read it again', { retryable: true });
    return next;
  }

  private async load(id: unknown): Promise<A2ATaskRecord> {
    const task = isTaskId(id) ? await this.guarded(() => this.store.get(id)) : null;
    if (!task) throw new A2AError(A2A_ERRORS.taskNotFound, 'task not found or expired');
    return task;
  }

  /** A task store or lock that fails answers -32603, never a half-written task. */
  private async guarded<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof A2AError) throw err;
      this.logger.error({ err }, 'a2a task store unavailable');
      throw new A2AError(A2A_ERRORS.internal, 'the task store is unavailable; retry shortly', { retryable: true });
    }
  }

  private lockMs(): number {
    return this.config.a2a.serveMs + this.config.settlement.confirmMs + LOCK_MARGIN_MS;
  }
}

function idOf(params: unknown): unknown {
  return typeof params === 'object' && params !== null ? (params as { id?: unknown }).id : undefined;
}

function refuseUnless(state: TaskState, trigger: TaskTrigger): void {
  const step = transition(state, trigger);
  if ('refused' in step) throw A2AError.from(step.refused);
}

/**
 * A refusal of the payment leg as -32007, with what the client needs to decide whether a retry can
 * help, and a channel's `last_cumulative` (spec 7); a busy channel is -32603, retryable.
 */
function paymentFailed(err: unknown): unknown {
  if (err instanceof A2AError || !(err instanceof GatewayError)) return err;
  if (err.code === 'payment.channel_unavailable') return new A2AError(A2A_ERRORS.paymentFailed, CHANNELS_OFF, { reason: err.code, retryable: false });
  if (err.code === 'rate_limit.channel_busy') return new A2AError(A2A_ERRORS.internal, err.message, { reason: err.code, retryable: true, ...err.details });
  // A node's refusal of the transaction at broadcast (settlement_failed) is deterministic: the same payment fails again.
  const retryable = err.type === 'rate_limit_exceeded' || err.type === 'service_unavailable' || err.code === 'payment.unconfirmed' || err.code === 'payment.chain_unreachable';
  return new A2AError(A2A_ERRORS.paymentFailed, err.message, { reason: err.code, retryable, ...err.details });
}
