import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import type { ChatRequest } from '../../providers/domain/chat-request';

/**
 * The response cache key (spec 1.7): SHA-256 over the surface the request came in on (its path:
 * chat and Anthropic Messages keep their own entries, docs/decisions.md, "One pipeline, wire
 * codecs at the edge"), the resolved model, the messages, tools,
 * tool_choice and temperature, plus every other field that changes the answer (top_p, the
 * completion cap sent upstream, stop, seed, penalties, response_format, parallel_tool_calls,
 * logprobs, top_logprobs, reasoning_effort, and the Anthropic slot: thinking blocks, cache_control,
 * the thinking budget, top_k). `stream` is left out on purpose: a cached answer is
 * served in whichever form is asked; `user`, `metadata` and `service_tier` do not change it.
 * Object keys are serialised in sorted order, so the same request written in another key order
 * (a tool schema's properties, say) finds the same entry.
 */
export function cacheKey(surface: string, modelId: string, request: ChatRequest, maxTokens: number): string {
  const fields = [
    surface,
    modelId,
    request.messages,
    request.tools ?? null,
    request.tool_choice ?? null,
    request.temperature ?? null,
    request.top_p ?? null,
    maxTokens,
    request.stop ?? null,
    request.seed ?? null,
    request.presence_penalty ?? null,
    request.frequency_penalty ?? null,
    request.response_format ?? null,
    request.parallel_tool_calls ?? null,
    request.logprobs ?? null,
    request.top_logprobs ?? null,
    request.reasoning_effort ?? null,
    request.anthropic ?? null,
  ];
  return createHash('sha256').update(stringify(fields)).digest('hex');
}
