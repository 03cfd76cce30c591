import { parseUsdc } from './atomic-usdc';
import { answerCost } from './answer-cost';
import { chatCost, type TokenRates } from './chat-cost';

const rates: TokenRates = { inputAtomicPerMillion: parseUsdc('0.30') as bigint, outputAtomicPerMillion: parseUsdc('2.50') as bigint };

describe('answerCost', () => {
  it('prices the reported usage at the model rates, fee included', () => {
    expect(answerCost({ prompt_tokens: 1, completion_tokens: 8192 }, rates)).toBe(21_505n);
    expect(answerCost({ prompt_tokens: 1000, completion_tokens: 37 }, rates)).toBe(chatCost(1000, 37, rates).total);
  });

  it('is null when the provider reported no usage: the real cost is unknown', () => {
    expect(answerCost(undefined, rates)).toBeNull();
  });

  it('is 0 for an answer that used nothing', () => {
    expect(answerCost({ prompt_tokens: 0, completion_tokens: 0 }, rates)).toBe(0n);
  });
});
