import type { ChatRequest } from './chat-request';

/**
 * Tokens an image part is assumed to cost upstream. Providers bill images by size and detail
 * (OpenAI 85 to 1,105 for common sizes, Anthropic about 1,600 for a 1.15-megapixel image); the
 * quote takes the upper figure so a paid estimate does not fall short (docs/decisions.md).
 */
export const IMAGE_PART_TOKENS = 1600;

/**
 * Input tokens = ceil(C / 4), at least 1, where C counts the code points of all text the request
 * sends upstream (ARCHITECTURE.md section 3 "Cost"), plus IMAGE_PART_TOKENS per image part.
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
    for (const call of message.tool_calls ?? []) codePoints += codePointLength(call.function.arguments);
  }
  if (request.tools !== undefined) codePoints += codePointLength(JSON.stringify(request.tools));
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
