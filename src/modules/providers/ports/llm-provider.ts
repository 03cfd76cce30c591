import type { ChatRequest } from '../domain/chat-request';
import type { ChatCompletion, ChatCompletionChunk } from '../domain/chat-completion';
import type { ProviderName } from '../domain/provider-name';

/** One call to one upstream model. */
export interface UpstreamCall {
  /** The model's name in the provider's own API. */
  upstreamModel: string;
  /** The validated request; its `model`, `max_tokens` and `stream` are overridden by the fields below. */
  request: ChatRequest;
  /** The billed completion cap, always sent upstream (spec 2.1). */
  maxTokens: number;
  stream: boolean;
  /** The catalog marks the model as a reasoning model: some APIs refuse sampling settings for those. */
  reasoning: boolean;
}

/**
 * What an adapter did not send as the client wrote it: optional settings the upstream has no
 * place for (dropped) and ones whose value or shape it changed (rewritten); renaming a field into
 * the provider's own format is not a change. Listed in a debug header (docs/decisions.md,
 * "Provider capabilities").
 */
export interface RequestAdjustments {
  dropped: string[];
  rewritten: string[];
}

/**
 * The upstream's answer once it has started: a whole completion, or a stream of chunks whose last
 * one carries usage when the provider reports it. Iterating the stream throws UpstreamError when
 * the upstream fails midway (cut, malformed chunk, no proper end).
 */
export type UpstreamReply = { kind: 'json'; completion: ChatCompletion } | { kind: 'stream'; chunks: AsyncIterable<ChatCompletionChunk> };

/**
 * A provider's chat API in OpenAI's shape. `send` resolves when the upstream has answered with a
 * success status (before that nothing reached the client, so the caller may fall back), and
 * throws UpstreamError otherwise. `signal` aborts the upstream request (client gone, timeout).
 */
export abstract class LlmProvider {
  abstract readonly name: ProviderName;

  abstract send(call: UpstreamCall, signal: AbortSignal): Promise<UpstreamReply>;

  abstract adjustments(call: UpstreamCall): RequestAdjustments;
}

/** The providers that can be called: one per upstream with a key (one without a key is never called). */
export abstract class LlmProviders {
  abstract readonly all: readonly LlmProvider[];
}
