import { Injectable } from '@nestjs/common';
import { BackgroundTasks } from '../../../core/background-tasks';
import type { ReportedUsage } from '../domain/answer-cost';
import type { SpendRecord } from '../domain/spend-record';
import { SpendLog } from '../ports/spend-log';

/** A generated answer as the surface that served it knows it. */
export interface SpendAnswer {
  requestId: string;
  /** Null for an answer served free. */
  payer: string | null;
  /** The model that answered (not necessarily the one quoted). */
  model: { id: string; provider: string };
  /** The provider's usage; when it reported none, the row holds the estimated input tokens and no output. */
  usage: ReportedUsage | undefined;
  estimatedInputTokens: number;
  charged: bigint;
}

/** What a paid answer's spend row needs besides its payer and charge, which its payment knows. */
export type AnswerSpend = Omit<SpendAnswer, 'payer' | 'charged'>;

/** A prepaid service call (a paid tool, a proxied service): no tokens, served by the gateway. */
export interface SpendService {
  requestId: string;
  payer: string;
  /** The registry id of what was bought. */
  serviceId: string;
  charged: bigint;
}

/**
 * The one writer of spend rows (docs/decisions.md, "One writer of spend rows"): every surface says
 * what it served and charged, and the row is written here, in the background, so a slow or failing
 * spend log never holds or fails an answer already given.
 */
@Injectable()
export class SpendRecorder {
  constructor(
    private readonly log: SpendLog,
    private readonly background: BackgroundTasks,
  ) {}

  answer(answer: SpendAnswer): void {
    this.write(answerRow(answer));
  }

  service({ requestId, payer, serviceId, charged }: SpendService): void {
    this.answer({ ...serviceAnswer(requestId, serviceId), payer, charged });
  }

  private write(row: Omit<SpendRecord, 'createdAt'>): void {
    this.background.run('spend log', () => this.log.record({ ...row, createdAt: new Date() }));
  }
}

/** A service call as an answer: the registry id for the model, served by the gateway, no tokens. */
export function serviceAnswer(requestId: string, serviceId: string): AnswerSpend {
  return { requestId, model: { id: serviceId, provider: 'gateway' }, usage: undefined, estimatedInputTokens: 0 };
}

/**
 * The row of an answer: what `answer` writes, and what a channel draw writes in its own
 * transaction (docs/decisions.md, "Channels"), so both say the same.
 */
export function answerRow({ requestId, payer, model, usage, estimatedInputTokens, charged }: SpendAnswer): Omit<SpendRecord, 'createdAt'> {
  return {
    requestId,
    payerWallet: payer,
    model: model.id,
    provider: model.provider,
    tokensIn: usage?.prompt_tokens ?? estimatedInputTokens,
    tokensOut: usage?.completion_tokens ?? 0,
    amountChargedAtomic: charged,
  };
}
