import { messageText, OPTIONAL_PARAMETERS, type ChatMessage } from '../../../modules/chat/domain/chat-request';
import type { RequestAdjustments, UpstreamCall } from '../../../modules/providers/ports/llm-provider';
import { requestAdjustments, type ParameterSupport } from '../parameter-support';
import type { OpenAiDialect } from './dialects';

/** The upstream body: the client's request with our model name, the billed cap, usage always reported, and only what the API takes. */
export function openAiRequestBody(call: UpstreamCall, dialect: OpenAiDialect): Record<string, unknown> {
  const { request } = call;
  const support = supportFor(call, dialect);
  const body: Record<string, unknown> = {
    model: call.upstreamModel,
    messages: request.messages.map((message) => upstreamMessage(message, dialect)),
    [dialect.maxTokensField]: call.maxTokens,
  };
  if (request.tools !== undefined) body.tools = request.tools;
  if (request.tool_choice !== undefined) body.tool_choice = request.tool_choice;
  for (const key of OPTIONAL_PARAMETERS) if (request[key] !== undefined && support.forwarded.has(key)) body[key] = request[key];
  if (call.stream) {
    body.stream = true;
    // Usage is always captured for billing, whether or not the client asked to see it.
    body.stream_options = { include_usage: true };
  }
  return body;
}

export function openAiAdjustments(call: UpstreamCall, dialect: OpenAiDialect): RequestAdjustments {
  const flattened = dialect.contentAsString && call.request.messages.some((message) => Array.isArray(message.content));
  return requestAdjustments(call.request, supportFor(call, dialect), flattened ? ['messages[].content'] : []);
}

function supportFor(call: UpstreamCall, dialect: OpenAiDialect): ParameterSupport {
  return call.reasoning ? dialect.parameters.reasoning : dialect.parameters.standard;
}

/** Image parts cannot reach a string-only API: the catalog marks its models without vision, so only text parts get here. */
function upstreamMessage(message: ChatMessage, dialect: OpenAiDialect): ChatMessage {
  const role = message.role === 'developer' && !dialect.developerRole ? 'system' : message.role;
  const content = dialect.contentAsString && Array.isArray(message.content) ? messageText(message) : (message.content ?? '');
  return { ...message, role, content };
}
