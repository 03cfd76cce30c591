import type { MessageParam, TextBlockParam, ThinkingConfigEnabled, Tool } from '@anthropic-ai/sdk/resources/messages';

/**
 * What a request on the Anthropic Messages surface says that the neutral request cannot carry
 * (docs/decisions.md, "Anthropic passthrough"): its system, messages and tools as the client wrote
 * them, with thinking and redacted_thinking blocks, tool_result images and `cache_control` kept
 * (unknown fields left out), its thinking budget and top_k. Only the Anthropic adapter reads it;
 * every other provider answers the neutral request, where these are dropped.
 */
export interface AnthropicNativeRequest {
  system?: string | TextBlockParam[];
  messages: MessageParam[];
  tools?: Tool[];
  thinking?: ThinkingConfigEnabled;
  top_k?: number;
}
