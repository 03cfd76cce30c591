import type { Message, StopReason } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletion } from '../../../modules/providers/domain/chat-completion';
import { chatCompletion, completionUsage, type CompletionUsage, type FinishReason, type OpenAiToolCall } from '../shared/openai-shapes';

const FINISH_REASONS: Record<StopReason, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  // A server tool's long turn paused: what came so far is a whole answer to the client.
  pause_turn: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** Stop reasons newer than these types (model_context_window_exceeded, ...) read as a plain stop, as does the forced JSON tool's call. */
export function finishReason(stopReason: StopReason | null, answeredAsJson = false): FinishReason {
  if (answeredAsJson && stopReason === 'tool_use') return 'stop';
  return (stopReason !== null && FINISH_REASONS[stopReason]) || 'stop';
}

/** The token counts Anthropic reports, in a message or cumulatively in a stream's message_delta. */
export interface AnthropicUsage {
  input_tokens: number | null;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** Input tokens read from or written to the prompt cache are prompt tokens too: billed, and OpenAI counts them in. */
export function openAiUsage(usage: AnthropicUsage): CompletionUsage {
  const promptTokens = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
  return completionUsage(promptTokens, usage.output_tokens);
}

/**
 * Text blocks joined as the content, tool_use blocks as tool calls; other blocks (thinking, server
 * tools) are not the client's. The call of `jsonTool` (response_format's forced tool) is the answer
 * itself: its input becomes the content, and the turn a plain stop.
 */
export function anthropicCompletion(message: Message, jsonTool?: string): ChatCompletion {
  let text = '';
  let answeredAsJson = false;
  const toolCalls: OpenAiToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use' && block.name === jsonTool) {
      text += JSON.stringify(block.input);
      answeredAsJson = true;
    } else if (block.type === 'tool_use') toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } });
  }
  // The real API always reports usage; without it the completion carries none rather than zeros.
  const usage = message.usage as AnthropicUsage | undefined;
  return chatCompletion(message.id, message.model, { text, toolCalls, finishReason: finishReason(message.stop_reason, answeredAsJson), usage: usage && openAiUsage(usage) });
}
