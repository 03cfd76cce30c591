import type { Base64ImageSource, CacheControlEphemeral, ContentBlockParam, ImageBlockParam, MessageParam, TextBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import Ajv from 'ajv';
import { fieldError, GatewayError } from '../../../errors/gateway-error';
import type { AnthropicNativeRequest } from '../../providers/domain/anthropic-native';
import { MAX_MESSAGES, type ChatMessage, type ChatRequest, type ContentPart, type FunctionTool, type ReasoningEffort, type ToolCall, type ToolChoice } from '../../providers/domain/chat-request';
import { ANTHROPIC_COUNT_TOKENS_SCHEMA, ANTHROPIC_REQUEST_SCHEMA, MAX_CACHE_BREAKPOINTS } from '../domain/anthropic-request-schema';
import { firstError, invalidBody } from './body-schema-errors';
import { requireSomethingSaid } from './chat-request-validator';

/*
 * The Anthropic Messages wire format's input, on the controller's side of the completion pipeline
 * (docs/decisions.md, "One pipeline, wire codecs at the edge" and "The Anthropic Messages codec"):
 * a body as the neutral ChatRequest every provider adapter takes. Its output half is
 * anthropic-codec.ts.
 */

type Maybe<T> = T | null | undefined;
interface Cached {
  cache_control?: Maybe<CacheControlEphemeral>;
}
interface TextBlock extends Cached {
  type: 'text';
  text: string;
}
interface ImageBlock extends Cached {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
}
interface ToolUseBlock extends Cached {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}
interface ToolResultBlock extends Cached {
  type: 'tool_result';
  tool_use_id: string;
  content?: Maybe<string | Array<TextBlock | ImageBlock>>;
  is_error?: Maybe<boolean>;
}
type Block = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | { type: 'thinking'; thinking: string; signature?: Maybe<string> } | { type: 'redacted_thinking'; data: string };
interface RawMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}
type RawTool = { name: string; description?: Maybe<string>; input_schema: Record<string, unknown> } & Cached;
interface RawRequest {
  model: string;
  max_tokens?: Maybe<number>;
  messages: RawMessage[];
  system?: Maybe<string | TextBlock[]>;
  stop_sequences?: Maybe<string[]>;
  temperature?: Maybe<number>;
  top_p?: Maybe<number>;
  top_k?: Maybe<number>;
  stream?: Maybe<boolean>;
  tools?: Maybe<RawTool[]>;
  tool_choice?: Maybe<{ type: 'auto' | 'any' | 'tool' | 'none'; name?: string; disable_parallel_tool_use?: Maybe<boolean> }>;
  metadata?: Maybe<{ user_id?: Maybe<string> }>;
  thinking?: Maybe<{ type: 'enabled'; budget_tokens: number } | { type: 'disabled' }>;
}

// Compiled once, as chat's.
const ajv = new Ajv({ allErrors: false, verbose: true, strict: true, allowUnionTypes: true });
const validateMessages = ajv.compile<RawRequest>(ANTHROPIC_REQUEST_SCHEMA);
const validateCountTokens = ajv.compile<RawRequest>(ANTHROPIC_COUNT_TOKENS_SCHEMA);

/** The text a tool_result carries when its tool failed: the neutral request has no flag for it, so the model reads it (docs/decisions.md, "The Anthropic Messages codec"). */
export const TOOL_ERROR_PREFIX = 'Error: ';

/**
 * An Anthropic Messages body as the neutral ChatRequest, or a 400 naming the first problem, with
 * the codes chat's validation uses. `countTokens`: the count_tokens body, where `max_tokens` may
 * be left out.
 */
export function parseMessagesRequest(body: unknown, { countTokens = false } = {}): ChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new GatewayError('request.invalid_body', 'the body must be a JSON object');
  const messages = (body as { messages?: unknown }).messages;
  if (Array.isArray(messages) && messages.length > MAX_MESSAGES) {
    throw fieldError('chat.too_many_messages', 'messages', `too many messages: ${messages.length} exceeds maximum of ${MAX_MESSAGES}`);
  }
  const validate = countTokens ? validateCountTokens : validateMessages;
  if (!validate(body)) throw invalidBody(firstError(validate.errors ?? []));
  const request = neutral(body);
  requireSomethingSaid(request);
  request.anthropic = nativeRequest(body);
  return request;
}

function neutral(raw: RawRequest): ChatRequest {
  const system = systemText(raw.system);
  const request: ChatRequest = { model: raw.model, messages: [...(system ? [{ role: 'system' as const, content: system }] : []), ...raw.messages.flatMap(neutralMessages)] };
  if (raw.max_tokens != null) request.max_tokens = raw.max_tokens;
  if (raw.stream != null) request.stream = raw.stream;
  if (raw.temperature != null) request.temperature = raw.temperature;
  if (raw.top_p != null) request.top_p = raw.top_p;
  if (raw.stop_sequences != null && raw.stop_sequences.length > 0) request.stop = raw.stop_sequences;
  if (raw.tools != null) request.tools = raw.tools.map(neutralTool);
  if (raw.tool_choice != null) {
    request.tool_choice = neutralToolChoice(raw.tool_choice);
    if (raw.tool_choice.disable_parallel_tool_use === true) request.parallel_tool_calls = false;
  }
  if (raw.metadata?.user_id != null) request.user = raw.metadata.user_id;
  if (raw.thinking?.type === 'enabled') request.reasoning_effort = reasoningEffort(raw.thinking.budget_tokens);
  // top_k has no neutral field: accepted and not forwarded (docs/decisions.md, "The Anthropic Messages codec").
  return request;
}

function systemText(system: RawRequest['system']): string {
  if (system == null) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}

/**
 * One Anthropic message as neutral messages: tool results become tool messages, in order, before
 * what else the user said; an assistant's tool_use blocks its tool calls; thinking blocks, which
 * agents send back in tool loops, are dropped, since only Anthropic reads them.
 */
function neutralMessages(message: RawMessage, index: number): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  if (message.role === 'assistant') return [assistantMessage(message.content, index)];
  const results: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_result') results.push({ role: 'tool', tool_call_id: block.tool_use_id, content: toolResultText(block) });
    else if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push(imagePart(block));
    else if (block.type === 'tool_use') throw fieldError('request.invalid_body', `messages[${index}].content`, `messages[${index}].content: tool_use blocks belong to assistant messages`);
  }
  return parts.length > 0 || results.length === 0 ? [...results, { role: 'user', content: parts }] : results;
}

/**
 * An assistant's text and tool calls. Images and tool results are the user's to send: the neutral
 * request has no place for them in an assistant turn, so the estimate and the prompt guard would
 * never see what the Anthropic slot forwarded, and they are refused as tool_use is in a user's turn.
 */
function assistantMessage(blocks: Block[], index: number): ChatMessage {
  const text: string[] = [];
  const calls: ToolCall[] = [];
  for (const block of blocks) {
    if (block.type === 'text') text.push(block.text);
    else if (block.type === 'tool_use') calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } });
    else if (block.type === 'image' || block.type === 'tool_result') {
      throw fieldError('request.invalid_body', `messages[${index}].content`, `messages[${index}].content: ${block.type} blocks belong to user messages`);
    }
  }
  const message: ChatMessage = { role: 'assistant', content: text.join('') };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function toolResultText(block: ToolResultBlock): string {
  const { content } = block;
  const text = typeof content === 'string' ? content : (content ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  return block.is_error === true ? `${TOOL_ERROR_PREFIX}${text}` : text;
}

function imagePart(block: ImageBlock): ContentPart {
  const { source } = block;
  return { type: 'image_url', image_url: { url: source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url } };
}

function neutralTool(tool: RawTool): FunctionTool {
  const declared: FunctionTool['function'] = { name: tool.name, parameters: tool.input_schema };
  if (tool.description != null) declared.description = tool.description;
  return { type: 'function', function: declared };
}

function neutralToolChoice(choice: NonNullable<RawRequest['tool_choice']>): ToolChoice {
  switch (choice.type) {
    case 'any':
      return 'required';
    case 'tool':
      return { type: 'function', function: { name: choice.name ?? '' } };
    default:
      return choice.type;
  }
}

/** A thinking budget as a reasoning effort: below 4,096 tokens low, below 16,384 medium, else high. */
export function reasoningEffort(budgetTokens: number): ReasoningEffort {
  if (budgetTokens < 4096) return 'low';
  return budgetTokens < 16384 ? 'medium' : 'high';
}

/**
 * The body as Anthropic takes it, for an Anthropic model to read whole (docs/decisions.md,
 * "Anthropic passthrough"): known fields alone, block by block, `cache_control` kept (at most
 * MAX_CACHE_BREAKPOINTS, as Anthropic allows), and thinking blocks only in assistant turns and
 * with the signature Anthropic checks them by.
 */
function nativeRequest(raw: RawRequest): AnthropicNativeRequest {
  const breakpoints = { count: 0 };
  const native: AnthropicNativeRequest = {
    messages: raw.messages.map((message): MessageParam => ({
      role: message.role,
      content: typeof message.content === 'string' ? message.content : message.content.flatMap((block) => nativeBlock(block, message.role, breakpoints)),
    })),
  };
  if (raw.system != null) native.system = typeof raw.system === 'string' ? raw.system : raw.system.map((block) => nativeText(block, breakpoints));
  if (raw.tools != null)
    native.tools = raw.tools.map((tool) =>
      cached<Tool>({ name: tool.name, input_schema: { ...tool.input_schema, type: 'object' }, ...(tool.description != null && { description: tool.description }) }, tool, breakpoints),
    );
  if (raw.thinking?.type === 'enabled') native.thinking = { type: 'enabled', budget_tokens: raw.thinking.budget_tokens };
  if (raw.top_k != null) native.top_k = raw.top_k;
  if (breakpoints.count > MAX_CACHE_BREAKPOINTS) {
    throw fieldError('request.invalid_body', 'cache_control', `at most ${MAX_CACHE_BREAKPOINTS} blocks and tools may carry cache_control; found ${breakpoints.count}`);
  }
  return native;
}

function nativeBlock(block: Block, role: RawMessage['role'], breakpoints: { count: number }): ContentBlockParam[] {
  switch (block.type) {
    case 'text':
      return [nativeText(block, breakpoints)];
    case 'image':
      return [nativeImage(block, breakpoints)];
    case 'tool_use':
      return [cached<ContentBlockParam>({ type: 'tool_use', id: block.id, name: block.name, input: block.input }, block, breakpoints)];
    case 'tool_result': {
      const { content } = block;
      const parts = typeof content === 'string' || content == null ? content : content.map((part) => (part.type === 'text' ? nativeText(part, breakpoints) : nativeImage(part, breakpoints)));
      return [
        cached<ContentBlockParam>(
          { type: 'tool_result', tool_use_id: block.tool_use_id, ...(parts != null && { content: parts }), ...(block.is_error != null && { is_error: block.is_error }) },
          block,
          breakpoints,
        ),
      ];
    }
    // Thinking is the model's: in a user's turn it is no thinking Anthropic gave, and is left out.
    case 'thinking':
      return block.signature == null || role !== 'assistant' ? [] : [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
    case 'redacted_thinking':
      return role !== 'assistant' ? [] : [{ type: 'redacted_thinking', data: block.data }];
  }
}

function nativeText(block: TextBlock, breakpoints: { count: number }): TextBlockParam {
  return cached<TextBlockParam>({ type: 'text', text: block.text }, block, breakpoints);
}

function nativeImage(block: ImageBlock, breakpoints: { count: number }): ImageBlockParam {
  const { source } = block;
  // A media type Anthropic does not read is its to refuse, as a direct call would be.
  const copied =
    source.type === 'base64' ? { type: 'base64' as const, media_type: source.media_type as Base64ImageSource['media_type'], data: source.data } : { type: 'url' as const, url: source.url };
  return cached<ImageBlockParam>({ type: 'image', source: copied }, block, breakpoints);
}

/** `target` with the breakpoint `source` sets, counted. */
function cached<T extends object>(target: T, source: Cached, breakpoints: { count: number }): T {
  const control = source.cache_control;
  if (control == null) return target;
  breakpoints.count += 1;
  return { ...target, cache_control: { type: 'ephemeral', ...(control.ttl != null && { ttl: control.ttl }) } };
}
