/**
 * The body of POST /v1/chat/completions once validated (spec 2.1, 2.2; OpenAI's chat format): the
 * request every provider adapter takes, so it lives beside the providers' port and answer types.
 */

import type { AnthropicNativeRequest } from './anthropic-native';

export const CHAT_ROLES = ['system', 'user', 'assistant', 'tool', 'developer'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export const MAX_MESSAGES = 256;
/**
 * The deepest a chat body nests objects and arrays, the body being level 1: the bound the edge
 * counts on every body as it is read (docs/decisions.md, "Nesting depth"), published in the schema.
 */
export const MAX_NESTING_DEPTH = 64;

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  /** Absent or null reads as the empty string (spec 2.2). */
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export interface ResponseFormat {
  type: 'text' | 'json_object' | 'json_schema';
  json_schema?: Record<string, unknown>;
}

/** OpenAI's reasoning effort levels; each provider maps or drops them (docs/decisions.md, "Provider capabilities"). */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export const SERVICE_TIERS = ['auto', 'default', 'flex', 'priority'] as const;

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  // OpenAI parameters beyond the spec's list that change the answer; forwarded where the provider has them.
  stop?: string | string[];
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  response_format?: ResponseFormat;
  stream_options?: { include_usage?: boolean };
  parallel_tool_calls?: boolean;
  logprobs?: boolean;
  top_logprobs?: number;
  reasoning_effort?: ReasoningEffort;
  /** The end user's id, for the provider's abuse monitoring. */
  user?: string;
  metadata?: Record<string, string>;
  service_tier?: (typeof SERVICE_TIERS)[number];
  /** What only Anthropic reads, set by the Messages surface (docs/decisions.md, "Anthropic passthrough"). */
  anthropic?: AnthropicNativeRequest;
}

/**
 * The request's optional settings a provider may take as written, translate into its own field,
 * or drop (docs/decisions.md, "Provider capabilities"). Messages, tools and the caps always go.
 */
export const OPTIONAL_PARAMETERS = [
  'temperature',
  'top_p',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'response_format',
  'parallel_tool_calls',
  'logprobs',
  'top_logprobs',
  'reasoning_effort',
  'user',
  'metadata',
  'service_tier',
] as const;
export type OptionalParameter = (typeof OPTIONAL_PARAMETERS)[number];

/** The message's text as a provider would read it: strings and text parts, images left out. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!content) return '';
  let text = '';
  for (const part of content) if (part.type === 'text') text += text ? `\n${part.text}` : part.text;
  return text;
}

export function imagePartCount(request: ChatRequest): number {
  let count = 0;
  for (const message of request.messages) {
    if (Array.isArray(message.content)) for (const part of message.content) if (part.type === 'image_url') count += 1;
  }
  return count;
}
