/**
 * The text the scorer reads: the last user message. Earlier turns are context the tier of the
 * next answer rarely depends on ("thanks!" after a long debugging thread is simple); their number
 * counts through the conversation-depth dimension instead.
 */
export function routingText<M extends { role: string }>(messages: readonly M[], textOf: (message: M) => string): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user') return textOf(messages[i]);
  }
  return '';
}
