import type { Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletion as OpenAiCompletion, ChatCompletionChunk as OpenAiChunk } from 'openai/resources/chat/completions/completions';

/*
 * The response shapes of spec 2.3, as OpenAI's own SDK types them (type-only: nothing of the SDK
 * runs in the gateway). Every adapter translates its provider's native answer into these. Beside
 * the translation, an Anthropic model answering a request that carries the Anthropic slot
 * (ChatRequest.anthropic) keeps its own message and events, for the Messages surface to pass on
 * unchanged (docs/decisions.md, "Anthropic passthrough"); nothing else reads them.
 */

export type ChatCompletion = OpenAiCompletion & { anthropic?: Message };

/** One chunk; an Anthropic passthrough stream gives one per upstream event, whose choices may be empty. */
export type ChatCompletionChunk = OpenAiChunk & { anthropic?: RawMessageStreamEvent };

export type ChunkChoice = OpenAiChunk.Choice;
export type ChunkDelta = OpenAiChunk.Choice.Delta;
export type CompletionChoice = OpenAiCompletion.Choice;

/** Token usage as the provider reported it. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
}
