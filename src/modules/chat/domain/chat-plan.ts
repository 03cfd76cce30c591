import { billedCompletionTokens, chatCost, type ChatCost } from '../../billing/domain/chat-cost';
import type { CatalogModel, Profile, Tier } from '../../routing/domain/catalog';
import type { RoutingSignals } from '../../routing/domain/routing-signals';
import { routingText } from '../../routing/domain/routing-text';
import { imagePartCount, messageText, type ChatRequest } from '../../providers/domain/chat-request';
import { estimateInputTokens } from './token-estimate';

/** A model that can answer, with what answering this request would cost on it. */
export interface PricedCandidate {
  model: CatalogModel;
  /** Completion tokens billed and sent upstream as max_tokens. */
  outputTokens: number;
  cost: ChatCost;
}

/** Everything decided about a request before anything is paid or sent upstream. */
export interface ChatPlan {
  request: ChatRequest;
  inputTokens: number;
  /** In the order to try; the first prices the request. Never empty. */
  candidates: readonly PricedCandidate[];
  routing: { profile: Profile; tier: Tier; score: number } | null;
}

export function routingSignals(request: ChatRequest): RoutingSignals {
  return {
    userText: routingText(request.messages, messageText),
    messageCount: request.messages.length,
    usesTools: (request.tools?.length ?? 0) > 0 || request.messages.some((m) => m.role === 'tool' || (m.tool_calls?.length ?? 0) > 0),
    imageParts: imagePartCount(request),
    inputTokens: estimateInputTokens(request),
    maxTokens: request.max_tokens,
  };
}

export function priceCandidate(model: CatalogModel, inputTokens: number, maxTokens: number | undefined): PricedCandidate {
  const outputTokens = billedCompletionTokens(maxTokens, model.maxOutput);
  return { model, outputTokens, cost: chatCost(inputTokens, outputTokens, model.rates) };
}

/** The quote: what the first candidate costs. */
export function quoteOf(plan: ChatPlan): ChatCost {
  return plan.candidates[0].cost;
}

/** Candidates a payment of `budget` covers: fallback never costs the payer more (docs/decisions.md, "Failure policy"). */
export function candidatesWithin(plan: ChatPlan, budget: bigint): PricedCandidate[] {
  return plan.candidates.filter((candidate) => candidate.cost.total <= budget);
}
