import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import type { ChatRequest } from '../../providers/domain/chat-request';
import type { WireCodec } from './completion-endpoint';
import { DATA_FRAMING } from './sse-writer';

/*
 * The OpenAI chat-completions wire format's output, on the controller's side of the completion
 * pipeline (docs/decisions.md, "One pipeline, wire codecs at the edge"): the answer and its chunks
 * as OpenAI's schema has them. Its input half is chat-request-validator.ts; errors need nothing of
 * their own, since the spec's envelope is OpenAI's (the error filter writes it, and a stream's
 * error event).
 */

/**
 * A JSON answer as OpenAI's schema requires it: every choice carries `message.refusal` and
 * `logprobs`, null where the upstream left them out (some OpenAI-compatible servers do, and the
 * free path forwards their bodies; answers kept in the cache or for redelivery are whatever was
 * kept). Applied once, where a JSON answer leaves, so every path gets it (docs/decisions.md,
 * "What OpenAI's schema requires of an answer").
 */
export function openAiAnswer(completion: ChatCompletion): ChatCompletion {
  return {
    ...completion,
    choices: completion.choices.map((choice) => ({ ...choice, message: { ...choice.message, refusal: choice.message.refusal ?? null }, logprobs: choice.logprobs ?? null })),
  };
}

/** Chunks as the client asked for them: usage only with `stream_options.include_usage`. */
export async function* openAiChunks(chunks: AsyncIterable<ChatCompletionChunk>, request: ChatRequest): AsyncGenerator<ChatCompletionChunk> {
  const showUsage = request.stream_options?.include_usage === true;
  for await (const chunk of chunks) {
    const shown = asShown(chunk, showUsage);
    if (shown) yield shown;
  }
}

/** A chunk as the client sees it: without usage unless asked, and a usage-only chunk not at all then. */
function asShown(chunk: ChatCompletionChunk, showUsage: boolean): ChatCompletionChunk | null {
  if (showUsage) return chunk;
  if (chunk.choices.length === 0) return null;
  const { usage: _usage, ...rest } = chunk;
  return rest;
}

/** OpenAI's format for the completion endpoint: `data:` events ending with `[DONE]`. */
export const OPENAI_CODEC: WireCodec = { answer: openAiAnswer, events: openAiChunks, framing: DATA_FRAMING, terminator: '[DONE]' };
