import { messageText, type ChatMessage, type ContentPart } from '../../../modules/providers/domain/chat-request';

/** Anthropic and Gemini have a system channel, not system and developer roles: these messages go there. */
export function isSystemMessage(message: ChatMessage): boolean {
  return message.role === 'system' || message.role === 'developer';
}

/** The system and developer messages' texts, in order, as one system prompt; undefined when there is none. */
export function systemPrompt(messages: readonly ChatMessage[]): string | undefined {
  const texts = messages.filter(isSystemMessage).map((message) => messageText({ ...message, content: contentParts(message) }));
  const spoken = texts.filter((text) => text !== '');
  return spoken.length > 0 ? spoken.join('\n\n') : undefined;
}

/**
 * The message's content as parts to map to a provider's blocks. Absent or null content is no part,
 * and blank texts are dropped: Anthropic and Gemini refuse empty text. Neither API has `name`, so
 * it becomes a `name: ` prefix that still tells participants apart; an assistant's own name is
 * dropped, since prefixed history would teach the model to prefix its answers.
 */
export function contentParts(message: ChatMessage): ContentPart[] {
  const { content, name } = message;
  const parts: ContentPart[] = typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);
  const kept = parts.filter((part) => part.type !== 'text' || part.text.trim() !== '');
  if (!name || message.role === 'assistant' || kept.length === 0) return kept;
  const [first, ...rest] = kept;
  return first.type === 'text' ? [{ type: 'text', text: `${name}: ${first.text}` }, ...rest] : [{ type: 'text', text: `${name}:` }, ...kept];
}
