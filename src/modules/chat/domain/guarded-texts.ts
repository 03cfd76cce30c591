import { messageText, type ChatRequest } from '../../providers/domain/chat-request';

/**
 * Every text of `request` the model reads, for the prompt guard (docs/decisions.md, "Prompt
 * guard"): each message's text, each tool call's arguments, and each tool's description and
 * parameter schema (whose property descriptions the model reads as surely as the tool's own).
 * Arguments and schemas are inspected as their keys and string values, one per line, not as JSON,
 * so the JSON's own quotation marks cannot pass an attack off as a quotation asked about;
 * arguments that are not JSON are inspected as sent.
 */
export function guardedTexts(request: ChatRequest): string[] {
  const texts = request.messages.map(messageText);
  for (const message of request.messages) for (const call of message.tool_calls ?? []) texts.push(argumentTexts(call.function.arguments));
  for (const { function: declared } of request.tools ?? []) {
    if (declared.description !== undefined) texts.push(declared.description);
    if (declared.parameters !== undefined) texts.push(jsonStrings(declared.parameters));
  }
  return texts;
}

/** The keys and string values of a JSON text, one per line; the text itself when it is not JSON. */
function argumentTexts(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return jsonStrings(parsed);
}

/** The keys and string values of a parsed JSON value, one per line, walked with a stack (no recursion). */
function jsonStrings(root: unknown): string {
  const strings: string[] = [];
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') strings.push(item);
    else if (Array.isArray(item)) for (const element of item) pending.push(element);
    else if (typeof item === 'object' && item !== null) {
      for (const [key, value] of Object.entries(item)) {
        strings.push(key);
        pending.push(value);
      }
    }
  }
  return strings.join('\n');
}
