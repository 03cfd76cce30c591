import type { DispatchTarget } from '../../providers/application/upstream-dispatcher';
import type { PricedCandidate } from '../domain/chat-plan';
import type { ChatRequest } from '../../providers/domain/chat-request';

/** One upstream call per candidate, in order; the catalog's reasoning mark tells the adapter which settings the model refuses. */
export function dispatchTargets(candidates: readonly PricedCandidate[], request: ChatRequest, stream: boolean): DispatchTarget[] {
  return candidates.map(({ model, outputTokens }) => ({
    provider: model.provider,
    call: { upstreamModel: model.upstreamModel, request, maxTokens: outputTokens, stream, reasoning: model.capabilities.reasoning },
  }));
}
