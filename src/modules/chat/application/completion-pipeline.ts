import { Injectable } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import { PaymentAdmission } from '../../payments/application/payment-admission';
import type { ChatRequest } from '../../providers/domain/chat-request';
import { quoteOf, type ChatPlan } from '../domain/chat-plan';
import { guardedTexts } from '../domain/guarded-texts';
import { PromptGuard } from '../domain/prompt-guard';
import { estimateInputTokens } from '../domain/token-estimate';
import { ChatPlanner } from './chat-planner';
import type { CompletionCaller, CompletionOutcome } from './completion-outcome';
import { FreeServing } from './free-serving';
import { FreeTierLimit } from './free-tier-limit';
import { PaidServing } from './paid-serving';

/**
 * One completion request, whatever wire format its codec read (spec 4.1): the client's windows
 * before any work on the text (the router's score, the estimate, the guard: docs/decisions.md,
 * "Limits before the work"; the name alone says which window applies), the plan, the guard, then
 * the free answer, the 402 quote, or the paid answer.
 */
@Injectable()
export class CompletionPipeline {
  private readonly guard = new PromptGuard();

  constructor(
    private readonly planner: ChatPlanner,
    private readonly freeTier: FreeTierLimit,
    private readonly admission: PaymentAdmission,
    private readonly free: FreeServing,
    private readonly paid: PaidServing,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(CompletionPipeline.name);
  }

  async handle(sent: ChatRequest, caller: CompletionCaller): Promise<CompletionOutcome> {
    // Renamed before anything reads the name, so the request is priced, cached and routed as its catalog id would be.
    const request = this.named(sent, caller);
    const charge = this.planner.charge(request);
    const freeWindow = charge === 'free' ? await this.freeTier.admit(caller.clientAddress, caller.bodyBytes) : null;
    const attempt = charge !== 'free' ? await this.admission.admit(caller.paymentHeader, caller.clientAddress, caller.bodyBytes) : null;
    const plan = this.planner.plan(request);
    if (quoteOf(plan).total === 0n) {
      // A profile that routed to a free model: its body was counted in the unpaid budget already.
      const perClient = freeWindow ?? (await this.freeTier.admit(caller.clientAddress, 0));
      this.inspect(plan, caller);
      return this.free.serve(plan, caller, perClient);
    }
    this.inspect(plan, caller);
    if (caller.paymentHeader === undefined) return this.paid.quote(plan, caller);
    return this.paid.serve(plan, caller, caller.paymentHeader, attempt ?? (await this.admission.count(caller.clientAddress)));
  }

  /**
   * The request's input tokens as the gateway estimates them (what its quote is priced on), for
   * count_tokens: free, counted in the client's window and unpaid budget as a quote is, and a model
   * name that names nothing is refused as on the answer (docs/decisions.md, "The Anthropic Messages codec").
   */
  async countTokens(sent: ChatRequest, caller: CompletionCaller): Promise<number> {
    const request = this.named(sent, caller);
    this.planner.charge(request);
    await this.admission.admit(undefined, caller.clientAddress, caller.bodyBytes);
    return estimateInputTokens(request);
  }

  /** The request as its surface names models: on Anthropic Messages a bare Anthropic id becomes the catalog id it names. */
  private named(sent: ChatRequest, caller: CompletionCaller): ChatRequest {
    return caller.surface.bareAnthropicIds ? this.planner.withBareAnthropicId(sent) : sent;
  }

  private inspect(plan: ChatPlan, caller: CompletionCaller): void {
    const verdict = this.guard.inspect(guardedTexts(plan.request));
    if (!verdict.blocked) return;
    this.logger.info({ request_id: caller.requestId, category: verdict.category, rule: verdict.rule }, 'request blocked by the prompt guard');
    throw new GatewayError('chat.content_blocked', 'Request blocked by content policy');
  }
}
