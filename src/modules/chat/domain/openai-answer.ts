import type { ChatCompletion } from '../../providers/domain/chat-completion';

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
