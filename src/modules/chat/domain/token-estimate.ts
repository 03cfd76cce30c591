import type { AnthropicNativeRequest } from '../../providers/domain/anthropic-native';
import type { ChatRequest } from '../../providers/domain/chat-request';

/**
 * Tokens an image part is assumed to cost upstream. Providers bill images by size and detail
 * (OpenAI 85 to 1,105 for common sizes, Anthropic about 1,600 for a 1.15-megapixel image); the
 * quote takes the upper figure so a paid estimate does not fall short (docs/decisions.md).
 */
export const IMAGE_PART_TOKENS = 1600;

/**
 * Input tokens = ceil(C / 4), at least 1, where C counts the code points of all text the request
 * sends upstream (docs/decisions.md, "Requests and the estimate"): the messages' text and names,
 * tool calls' ids, names and arguments, the ids tool messages answer, and the tools as JSON; plus
 * IMAGE_PART_TOKENS per image part; plus what the Anthropic slot forwards beyond these (the running
 * turn's thinking, tool results' images: nativeInputExtras).
 */
export function estimateInputTokens(request: ChatRequest): number {
  let codePoints = 0;
  let images = 0;
  for (const message of request.messages) {
    const { content } = message;
    if (typeof content === 'string') codePoints += codePointLength(content);
    else if (content) {
      for (const part of content) {
        if (part.type === 'text') codePoints += codePointLength(part.text);
        else images += 1;
      }
    }
    if (message.name !== undefined) codePoints += codePointLength(message.name);
    // A tool call's id and name, and the id a tool message answers, are forwarded as the client
    // wrote them (unbounded on both surfaces), so they are text the request sends upstream too.
    if (message.tool_call_id !== undefined) codePoints += codePointLength(message.tool_call_id);
    for (const call of message.tool_calls ?? []) codePoints += codePointLength(call.id) + codePointLength(call.function.name) + codePointLength(call.function.arguments);
  }
  if (request.tools !== undefined) codePoints += jsonCodePointLength(request.tools);
  const native = nativeInputExtras(request.anthropic);
  codePoints += native.codePoints;
  images += native.images;
  return Math.max(1, Math.ceil(codePoints / 4)) + images * IMAGE_PART_TOKENS;
}

/** Unicode code points: UTF-16 length minus one per surrogate pair (linear, no allocation). */
export function codePointLength(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs += 1;
        i += 1;
      }
    }
  }
  return text.length - pairs;
}

/**
 * codePointLength(JSON.stringify(value)) for a parsed JSON value, without recursion: a stack of
 * the values still to count, so a tool schema nested thousands deep cannot overflow the call stack
 * (the edge bounds the depth too: docs/decisions.md, "Nesting depth").
 */
export function jsonCodePointLength(value: unknown): number {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') total += codePointLength(JSON.stringify(item));
    else if (Array.isArray(item)) {
      // Brackets and commas; an element JSON cannot hold reads as null, as JSON.stringify writes it.
      total += 2 + Math.max(item.length - 1, 0);
      for (const element of item) pending.push(serialisable(element) ? element : null);
    } else if (typeof item === 'object' && item !== null) {
      let members = 0;
      for (const [key, member] of Object.entries(item)) {
        if (!serialisable(member)) continue;
        members += 1;
        total += codePointLength(JSON.stringify(key)) + 1;
        pending.push(member);
      }
      total += 2 + Math.max(members - 1, 0);
    } else total += JSON.stringify(item).length; // numbers, booleans and null: ASCII
  }
  return total;
}

/** What JSON.stringify writes inside an object or array (it skips or nulls the rest). */
function serialisable(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/**
 * What the Anthropic slot forwards beyond the neutral request, for the estimate: the code points
 * of the thinking (and redacted thinking) of the turn still running, which Anthropic reads and
 * bills as input where it strips earlier turns' (docs/decisions.md, "Anthropic passthrough"), and
 * the images tool results carry.
 */
export function nativeInputExtras(native: AnthropicNativeRequest | undefined): { codePoints: number; images: number } {
  const extras = { codePoints: 0, images: 0 };
  if (!native) return extras;
  const turnStart = currentTurnStart(native.messages);
  native.messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    for (const block of message.content) {
      if (index >= turnStart && block.type === 'thinking') extras.codePoints += codePointLength(block.thinking);
      else if (index >= turnStart && block.type === 'redacted_thinking') extras.codePoints += codePointLength(block.data);
      else if (block.type === 'tool_result' && Array.isArray(block.content)) for (const part of block.content) if (part.type === 'image') extras.images += 1;
    }
  });
  return extras;
}

/**
 * Where the running turn starts: after the last user message that answers no tool call. Tool
 * results continue the tool loop's turn, whose thinking Anthropic wants back and reads, even when
 * text comes with them; counting that thinking is the side a quote may err on.
 */
function currentTurnStart(messages: AnthropicNativeRequest['messages']): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const { role, content } = messages[index];
    if (role === 'user' && (typeof content === 'string' || !content.some((block) => block.type === 'tool_result'))) return index + 1;
  }
  return 0;
}
