import type { ChatMessage } from '../../../modules/chat/domain/chat-request';
import type { UpstreamCall } from '../../../modules/providers/ports/llm-provider';

/** How an OpenAI-compatible API departs from OpenAI's own. */
export interface OpenAiDialect {
  /** OpenAI's current models take `max_completion_tokens`; the compatible APIs still read `max_tokens`. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Whether the API knows the `developer` role; where it does not, it becomes `system`. */
  developerRole: boolean;
}

const PASSED_THROUGH = ['temperature', 'top_p', 'tools', 'tool_choice', 'stop', 'seed', 'presence_penalty', 'frequency_penalty', 'response_format', 'parallel_tool_calls'] as const;

/** The upstream body: the client's request with our model name, the billed cap and usage always reported. */
export function openAiRequestBody(call: UpstreamCall, dialect: OpenAiDialect): Record<string, unknown> {
  const { request } = call;
  const body: Record<string, unknown> = {
    model: call.upstreamModel,
    messages: request.messages.map((message) => upstreamMessage(message, dialect)),
    [dialect.maxTokensField]: call.maxTokens,
  };
  for (const key of PASSED_THROUGH) if (request[key] !== undefined) body[key] = request[key];
  if (call.stream) {
    body.stream = true;
    // Usage is always captured for billing, whether or not the client asked to see it.
    body.stream_options = { include_usage: true };
  }
  return body;
}

function upstreamMessage(message: ChatMessage, dialect: OpenAiDialect): ChatMessage {
  const role = message.role === 'developer' && !dialect.developerRole ? 'system' : message.role;
  return { ...message, role, content: message.content ?? '' };
}
