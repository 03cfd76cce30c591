import Ajv, { type ErrorObject } from 'ajv';
import { GatewayError } from '../../../errors/gateway-error';
import { MAX_MESSAGES, OPTIONAL_PARAMETERS, type ChatMessage, type ChatRequest } from '../domain/chat-request';
import { CHAT_REQUEST_SCHEMA } from '../domain/chat-request-schema';
import { MAX_NESTING_DEPTH, nestingBeyond } from '../domain/json-nesting';

type RawRequest = ChatRequest & { max_completion_tokens?: number };

// Compiled once: validating a typical body takes microseconds.
const validate = new Ajv({ allErrors: false, verbose: true, strict: true, allowUnionTypes: true }).compile<RawRequest>(CHAT_REQUEST_SCHEMA);

/**
 * A chat body as the gateway's ChatRequest, or a 400 `bad_request` naming the first problem.
 * Only known fields survive, so nothing a client invents is forwarded upstream.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new GatewayError('request.invalid_body', 'the body must be a JSON object');
  const messages = (body as { messages?: unknown }).messages;
  if (Array.isArray(messages) && messages.length > MAX_MESSAGES) {
    throw new GatewayError('chat.too_many_messages', `too many messages: ${messages.length} exceeds maximum of ${MAX_MESSAGES}`);
  }
  const tooDeep = nestingBeyond(body, MAX_NESTING_DEPTH);
  if (tooDeep !== null) throw new GatewayError('request.nesting_too_deep', `${tooDeep} is nested too deeply: objects and arrays may nest at most ${MAX_NESTING_DEPTH} levels`);
  if (!validate(body)) throw new GatewayError('request.invalid_body', describe(firstError(validate.errors ?? [])));
  const raw = body;
  raw.messages.forEach(checkMessage);
  if (!raw.messages.some(saysSomething)) throw new GatewayError('chat.blank_conversation', 'the conversation is blank: at least one message must carry text, an image, a tool call or a tool result');
  if (raw.max_tokens !== undefined && raw.max_completion_tokens !== undefined && raw.max_tokens !== raw.max_completion_tokens) {
    throw new GatewayError('chat.max_tokens_conflict', 'max_tokens and max_completion_tokens disagree; send one of them');
  }
  return pickKnown(raw);
}

function checkMessage(message: ChatMessage, index: number): void {
  if (message.tool_calls !== undefined && message.role !== 'assistant') {
    throw new GatewayError('chat.invalid_tool_message', `messages[${index}].tool_calls is allowed only on assistant messages`);
  }
  if (message.role === 'tool' && message.tool_call_id === undefined) {
    throw new GatewayError('chat.invalid_tool_message', `messages[${index}].tool_call_id is required on tool messages`);
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

function pickKnown(raw: RawRequest): ChatRequest {
  const request: ChatRequest = {
    model: raw.model,
    messages: raw.messages.map(({ role, content, name, tool_calls, tool_call_id }) => {
      const message: ChatMessage = { role, content: content ?? '' };
      if (name !== undefined) message.name = name;
      if (tool_calls !== undefined) message.tool_calls = tool_calls;
      if (tool_call_id !== undefined) message.tool_call_id = tool_call_id;
      return message;
    }),
  };
  const maxTokens = raw.max_tokens ?? raw.max_completion_tokens;
  if (maxTokens !== undefined) request.max_tokens = maxTokens;
  for (const key of ['stream', 'tools', 'tool_choice', ...OPTIONAL_PARAMETERS] as const) if (raw[key] !== undefined) (request as unknown as Record<string, unknown>)[key] = raw[key];
  if (raw.stream_options) request.stream_options = { include_usage: raw.stream_options.include_usage === true };
  return request;
}

/** A union's own error (with its description) rather than the first of its branches' errors. */
function firstError(errors: readonly ErrorObject[]): ErrorObject | undefined {
  return errors.find((error) => error.keyword === 'anyOf') ?? errors[0];
}

/** `messages[0].role must be one of: system, user, ...` from an Ajv error. */
function describe(error: ErrorObject | undefined): string {
  if (!error) return 'invalid request body';
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
  const subject = path || 'the body';
  const description = (error.parentSchema as { description?: string } | undefined)?.description;
  switch (error.keyword) {
    case 'required': {
      const field = String(error.params.missingProperty);
      return `${path ? `${path}.${field}` : field} is required`;
    }
    case 'type':
      return `${subject} must be ${String(error.params.type).split(',').join(' or ')}`;
    case 'enum':
      return `${subject} must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
    case 'anyOf':
      return `${subject} ${description ?? `must be ${JSON.stringify(error.params.allowedValue)}`}`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}
