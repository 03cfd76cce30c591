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
 * IMAGE_PART_TOKENS per image part.
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
