import { messageText, OPTIONAL_PARAMETERS, type ChatMessage } from '../../../modules/providers/domain/chat-request';
import type { RequestAdjustments, UpstreamCall } from '../../../modules/providers/ports/llm-provider';
import { sentAdjustments, type SentSettings } from '../shared/parameter-support';
import type { OpenAiDialect } from './dialects';

/** The upstream body: the client's request with our model name, the billed cap, usage always reported, and only what the API takes. */
export function openAiRequestBody(call: UpstreamCall, dialect: OpenAiDialect): Record<string, unknown> {
  const { request } = call;
  const body: Record<string, unknown> = {
    model: call.upstreamModel,
    messages: request.messages.map((message) => upstreamMessage(message, dialect)),
    [dialect.maxTokensField]: call.maxTokens,
    ...sentSettings(call, dialect),
  };
  if (request.tools?.length) {
    body.tools = request.tools;
    if (request.tool_choice !== undefined) body.tool_choice = request.tool_choice;
  }
  if (call.stream) {
    body.stream = true;
    // Usage is always captured for billing, whether or not the client asked to see it.
    body.stream_options = { include_usage: true };
  }
  return body;
}

export function openAiAdjustments(call: UpstreamCall, dialect: OpenAiDialect): RequestAdjustments {
  const { request } = call;
  const flattened = dialect.contentAsString && request.messages.some((message) => Array.isArray(message.content));
  const toolChoiceAlone = request.tool_choice !== undefined && !request.tools?.length;
  return sentAdjustments(request, sentSettings(call, dialect), { dropped: toolChoiceAlone ? ['tool_choice'] : [], rewritten: flattened ? ['messages[].content'] : [] });
}

/**
 * The settings the model's kind takes (dialects.ts), then the dialect's value rules. Tool settings
 * go only with tools: OpenAI refuses `tool_choice` and `parallel_tool_calls` without them.
 */
function sentSettings(call: UpstreamCall, dialect: OpenAiDialect): SentSettings {
  const { request } = call;
  const support = call.reasoning ? dialect.parameters.reasoning : dialect.parameters.standard;
  const sent: SentSettings = {};
  for (const key of OPTIONAL_PARAMETERS) if (request[key] !== undefined && support.forwarded.has(key)) sent[key] = request[key];
  if (!request.tools?.length) delete sent.parallel_tool_calls;
  dialect.values?.(sent, call);
  return sent;
}

/** Image parts cannot reach a string-only API: the catalog marks its models without vision, so only text parts get here. */
function upstreamMessage(message: ChatMessage, dialect: OpenAiDialect): ChatMessage {
  const role = message.role === 'developer' && !dialect.developerRole ? 'system' : message.role;
  const content = dialect.contentAsString && Array.isArray(message.content) ? messageText(message) : (message.content ?? '');
  return { ...message, role, content };
}
