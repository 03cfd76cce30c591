import type { ChatCompletion } from '../../providers/domain/chat-completion';
import { openAiAnswer } from './openai-codec';

const completion = (choice: Record<string, unknown>): ChatCompletion =>
  ({ id: 'c1', object: 'chat.completion', created: 1, model: 'nvidia/llama', choices: [{ index: 0, finish_reason: 'stop', ...choice }] }) as unknown as ChatCompletion;

describe('openAiAnswer: what OpenAI requires of every JSON answer', () => {
  it('adds refusal and logprobs as null where the upstream left them out', () => {
    expect(openAiAnswer(completion({ message: { role: 'assistant', content: 'Hi' } })).choices).toEqual([
      { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hi', refusal: null }, logprobs: null },
    ]);
  });

  it('keeps them where the upstream sent them, and the rest of the answer as it is', () => {
    const logprobs = { content: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [] }], refusal: null };
    const answer = completion({ message: { role: 'assistant', content: null, refusal: 'No.' }, logprobs });
    expect(openAiAnswer(answer)).toEqual(answer);
  });
});
