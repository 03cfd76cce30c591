import type { ChatMessage } from '../../../modules/providers/domain/chat-request';
import type { Turn } from './alternating-turns';
import { systemPrompt } from './message-parts';

/** The system prompt and the turns a provider with a system channel gets. */
export interface SpokenConversation<Role extends string, Part> {
  system: string | undefined;
  turns: Array<Turn<Role, Part>>;
}

/**
 * Anthropic and Gemini refuse a request without turns (`messages: []`, `contents: []`) where
 * OpenAI answers system and developer messages alone. Such a conversation sends its system text
 * as the one user turn and no system prompt: moved, not copied, so the model reads it once and
 * the input billed is what the estimate counted (docs/decisions.md, "System-only conversations").
 */
export function spokenConversation<Role extends string, Part>(
  messages: readonly ChatMessage[],
  turns: Array<Turn<Role, Part>>,
  userTurn: (text: string) => Turn<Role, Part>,
): SpokenConversation<Role, Part> {
  const system = systemPrompt(messages);
  if (turns.length > 0 || system === undefined) return { system, turns };
  return { system: undefined, turns: [userTurn(system)] };
}
