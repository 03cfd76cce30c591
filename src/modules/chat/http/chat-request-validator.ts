import Ajv from 'ajv';
import { fieldError, GatewayError } from '../../../errors/gateway-error';
import { MAX_MESSAGES, OPTIONAL_PARAMETERS, type ChatMessage, type ChatRequest, type FunctionTool } from '../../providers/domain/chat-request';
import { CHAT_REQUEST_SCHEMA } from '../domain/chat-request-schema';
import { firstError, invalidBody } from './body-schema-errors';

/** Optional fields as a body may send them: null means unset (docs/decisions.md, "Null is unset"). */
type Nullable<T> = { [K in keyof T]?: T[K] | null };
type RawMessage = Pick<ChatMessage, 'role' | 'content'> & Nullable<Pick<ChatMessage, 'name' | 'tool_calls' | 'tool_call_id'>>;
type RawTool = { type: 'function'; function: Pick<FunctionTool['function'], 'name'> & Nullable<Omit<FunctionTool['function'], 'name'>> };
type RawRequest = Pick<ChatRequest, 'model'> & { messages: RawMessage[]; tools?: RawTool[] | null; max_completion_tokens?: number | null } & Nullable<
    Omit<ChatRequest, 'model' | 'messages' | 'tools'>
  >;

// Compiled once: validating a typical body takes microseconds.
const validate = new Ajv({ allErrors: false, verbose: true, strict: true, allowUnionTypes: true }).compile<RawRequest>(CHAT_REQUEST_SCHEMA);

/**
 * A chat body as the gateway's ChatRequest, or a 400 `bad_request` naming the first problem and,
 * in `param`, the field at fault. Only known fields survive, so nothing a client invents is
 * forwarded upstream, and a null optional field is left out, so everything downstream (the cache
 * key, the redelivery fingerprint, the adapters) sees one form of each request.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new GatewayError('request.invalid_body', 'the body must be a JSON object');
  const messages = (body as { messages?: unknown }).messages;
  if (Array.isArray(messages) && messages.length > MAX_MESSAGES) {
    throw fieldError('chat.too_many_messages', 'messages', `too many messages: ${messages.length} exceeds maximum of ${MAX_MESSAGES}`);
  }
  if (!validate(body)) throw invalidBody(firstError(validate.errors ?? []));
  const raw = body;
  if (raw.max_tokens != null && raw.max_completion_tokens != null && raw.max_tokens !== raw.max_completion_tokens) {
    throw fieldError('chat.max_tokens_conflict', 'max_tokens', 'max_tokens and max_completion_tokens disagree; send one of them');
  }
  const request = withoutNulls(raw);
  request.messages.forEach(checkMessage);
  requireSomethingSaid(request);
  return request;
}

/** A 400 `chat.blank_conversation` unless some message is a turn (saysSomething); any wire format's request, once neutral. */
export function requireSomethingSaid(request: ChatRequest): void {
  if (!request.messages.some(saysSomething)) {
    throw fieldError('chat.blank_conversation', 'messages', 'the conversation is blank: at least one message must carry text, an image, a tool call or a tool result');
  }
}

function checkMessage(message: ChatMessage, index: number): void {
  if (message.tool_calls !== undefined && message.role !== 'assistant') {
    throw fieldError('chat.invalid_tool_message', `messages[${index}].tool_calls`, `messages[${index}].tool_calls is allowed only on assistant messages`);
  }
  if (message.role === 'tool' && message.tool_call_id === undefined) {
    throw fieldError('chat.invalid_tool_message', `messages[${index}].tool_call_id`, `messages[${index}].tool_call_id is required on tool messages`);
  }
}

/**
 * Whether the message is a turn at all. A conversation of blank messages reaches Anthropic and
 * Gemini as no turn, which both refuse (docs/decisions.md, "Blank conversations").
 */
function saysSomething(message: ChatMessage): boolean {
  if (message.role === 'tool' || (message.tool_calls?.length ?? 0) > 0) return true;
  if (typeof message.content === 'string') return message.content.trim() !== '';
  return (message.content ?? []).some((part) => part.type !== 'text' || part.text.trim() !== '');
}

/** The known fields of a valid body, each null one left out (an absent or null `content` reads as the empty string, spec 2.2). */
function withoutNulls(raw: RawRequest): ChatRequest {
  const request: ChatRequest = {
    model: raw.model,
    messages: raw.messages.map(({ role, content, name, tool_calls, tool_call_id }) => {
      const message: ChatMessage = { role, content: content ?? '' };
      if (name != null) message.name = name;
      if (tool_calls != null) message.tool_calls = tool_calls;
      if (tool_call_id != null) message.tool_call_id = tool_call_id;
      return message;
    }),
  };
  const maxTokens = raw.max_tokens ?? raw.max_completion_tokens;
  if (maxTokens != null) request.max_tokens = maxTokens;
  if (raw.tools != null) request.tools = raw.tools.map(withoutNullFields);
  for (const key of ['stream', 'tool_choice', ...OPTIONAL_PARAMETERS] as const) if (raw[key] != null) (request as unknown as Record<string, unknown>)[key] = raw[key];
  if (raw.stream_options) request.stream_options = { include_usage: raw.stream_options.include_usage === true };
  return request;
}

/** A tool whose `function` leaves out its null fields (the rest of the tool goes as sent). */
function withoutNullFields(tool: RawTool): FunctionTool {
  const { name, description, parameters, strict, ...rest } = tool.function;
  const declared: FunctionTool['function'] = { ...rest, name };
  if (description != null) declared.description = description;
  if (parameters != null) declared.parameters = parameters;
  if (strict != null) declared.strict = strict;
  return { ...tool, function: declared };
}
