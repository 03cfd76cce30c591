/**
 * The response shapes of spec 2.3, as OpenAI's own SDK types them (type-only: nothing of the SDK
 * runs in the gateway). Every adapter translates its provider's native answer into these.
 */
export type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions/completions';

/** Token usage as the provider reported it. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
}
