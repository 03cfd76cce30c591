import { chatCost, type TokenRates } from './chat-cost';

/** Token counts as the provider reported them for an answer (the usage of spec 2.3's answers). */
export interface ReportedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** What an answer's real usage costs at the answering model's rates; null when the provider reported no usage. */
export function answerCost(usage: ReportedUsage | undefined, rates: TokenRates): bigint | null {
  if (!usage) return null;
  return chatCost(usage.prompt_tokens, usage.completion_tokens, rates).total;
}
