import type { ChatCompletionChunk, ChunkChoice as Choice } from '../../../modules/providers/domain/chat-completion';

/**
 * A streamed tool call whose arguments never came gets `{}` before its choice finishes, as a whole
 * answer gives it: Anthropic streams a tool without parameters as a tool_use block with no (or
 * only empty) input_json_delta, and some OpenAI-compatible servers send `arguments: ""` and
 * nothing more. An empty string is not JSON: clients' `JSON.parse` and the openai SDK's tool
 * runner fail on it. Calls announced in the finishing chunk itself get `{}` in place; earlier
 * ones in a chunk of their own just before it.
 */
export async function* withToolArguments(chunks: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<ChatCompletionChunk> {
  /** Per choice, each tool call index and whether argument text has arrived for it. */
  const calls = new Map<number, Map<number, boolean>>();
  for await (const chunk of chunks) {
    const fillers: Choice[] = [];
    const choices = chunk.choices.map((choice) => {
      let seen = calls.get(choice.index);
      for (const call of choice.delta?.tool_calls ?? []) {
        if (!seen) calls.set(choice.index, (seen = new Map()));
        seen.set(call.index, seen.get(call.index) === true || Boolean(call.function?.arguments));
      }
      if (!choice.finish_reason || !seen) return choice;
      calls.delete(choice.index);
      const bare = new Set([...seen].filter(([, argued]) => !argued).map(([index]) => index));
      if (bare.size === 0) return choice;
      const toolCalls = choice.delta.tool_calls?.map((call) => (bare.delete(call.index) ? { ...call, function: { ...call.function, arguments: '{}' } } : call));
      if (bare.size > 0) fillers.push({ index: choice.index, delta: { tool_calls: [...bare].map((index) => ({ index, function: { arguments: '{}' } })) }, finish_reason: null, logprobs: null });
      return toolCalls ? { ...choice, delta: { ...choice.delta, tool_calls: toolCalls } } : choice;
    });
    if (fillers.length > 0) yield { id: chunk.id, object: chunk.object, created: chunk.created, model: chunk.model, choices: fillers };
    yield { ...chunk, choices };
  }
}
