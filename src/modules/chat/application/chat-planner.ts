import { Injectable } from '@nestjs/common';
import { ModelRouter } from '../../routing/application/model-router';
import { catalogNameOfBareAnthropicId } from '../../routing/domain/model-resolution';
import type { Charge } from '../../routing/domain/name-charge';
import { priceCandidate, routingSignals, type ChatPlan } from '../domain/chat-plan';
import type { ChatRequest } from '../../providers/domain/chat-request';

/** Spec 4.1 step 1 and the estimate: which models answer, and what each would cost. */
@Injectable()
export class ChatPlanner {
  constructor(private readonly router: ModelRouter) {}

  /** Whether the request is served free or paid, before the work of planning it (see CompletionPipeline.handle). */
  charge(request: ChatRequest): Charge {
    return this.router.charge(request.model);
  }

  /** The request with a bare Anthropic model id replaced by the catalog id it names (catalogNameOfBareAnthropicId); any other request as it is. */
  withBareAnthropicId(request: ChatRequest): ChatRequest {
    const model = catalogNameOfBareAnthropicId(this.router.catalog, request.model);
    return model === request.model ? request : { ...request, model };
  }

  plan(request: ChatRequest): ChatPlan {
    const signals = routingSignals(request);
    const routed = this.router.route(request.model, signals);
    return {
      request,
      inputTokens: signals.inputTokens,
      candidates: routed.candidates.map((model) => priceCandidate(model, signals.inputTokens, request.max_tokens)),
      routing: routed.routing,
    };
  }
}
