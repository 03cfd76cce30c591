/** One turn of a conversation in a provider's roles, its parts in that provider's shape. */
export interface Turn<Role extends string, Part> {
  role: Role;
  parts: Part[];
}

/**
 * Anthropic and Gemini want user and model turns to alternate and refuse a turn without content:
 * empty turns (a blank message) are dropped, then consecutive turns of one role (tool results
 * followed by the user's next words, two user messages in a row) become one, in order.
 */
export function alternatingTurns<Role extends string, Part>(turns: Iterable<Turn<Role, Part>>): Array<Turn<Role, Part>> {
  const merged: Array<Turn<Role, Part>> = [];
  for (const turn of turns) {
    if (turn.parts.length === 0) continue;
    const last = merged.at(-1);
    if (last?.role === turn.role) last.parts.push(...turn.parts);
    else merged.push({ role: turn.role, parts: [...turn.parts] });
  }
  return merged;
}
