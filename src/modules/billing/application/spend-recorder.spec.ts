import type { GatewayConfig } from '../../../config/gateway-config';
import { BackgroundTasks } from '../../../core/background-tasks';
import type { AppLogger } from '../../../logging/app-logger';
import type { SpendRecord } from '../domain/spend-record';
import { SpendLog } from '../ports/spend-log';
import { SpendRecorder } from './spend-recorder';

class RecordingSpendLog extends SpendLog {
  readonly rows: SpendRecord[] = [];
  failing = false;

  async record(entry: SpendRecord): Promise<void> {
    if (this.failing) throw new Error('spend log down');
    this.rows.push(entry);
  }

  async findByRequestId(requestId: string): Promise<SpendRecord | null> {
    return this.rows.find((row) => row.requestId === requestId) ?? null;
  }
}

function recorder(): { spend: SpendRecorder; log: RecordingSpendLog; background: BackgroundTasks; failures: unknown[] } {
  const failures: unknown[] = [];
  const logger = { setContext: () => undefined, error: (fields: unknown) => failures.push(fields), warn: () => undefined } as unknown as AppLogger;
  const background = new BackgroundTasks(logger, { http: { shutdownGraceMs: 1000 } } as GatewayConfig);
  const log = new RecordingSpendLog();
  return { spend: new SpendRecorder(log, background), log, background, failures };
}

const model = { id: 'openai/gpt-4o-mini', provider: 'openai' };

describe('SpendRecorder', () => {
  it('writes an answer with the usage the provider reported', async () => {
    const { spend, log, background } = recorder();
    spend.answer({ requestId: 'req-1', payer: 'Payer111', model, usage: { prompt_tokens: 12, completion_tokens: 40 }, estimatedInputTokens: 30, charged: 1_234n });
    await background.drain(1000);
    expect(log.rows).toEqual([
      { requestId: 'req-1', payerWallet: 'Payer111', model: model.id, provider: 'openai', tokensIn: 12, tokensOut: 40, amountChargedAtomic: 1_234n, createdAt: expect.any(Date) },
    ]);
  });

  it('writes the estimated input and no output for an answer without usage, and null for a free answer', async () => {
    const { spend, log, background } = recorder();
    spend.answer({ requestId: 'req-2', payer: null, model, usage: undefined, estimatedInputTokens: 30, charged: 0n });
    await background.drain(1000);
    expect(log.rows).toEqual([expect.objectContaining({ requestId: 'req-2', payerWallet: null, tokensIn: 30, tokensOut: 0, amountChargedAtomic: 0n })]);
  });

  it('writes a service call as the gateway serving the registry id, with no tokens', async () => {
    const { spend, log, background } = recorder();
    spend.service({ requestId: 'req-3', payer: 'Payer111', serviceId: 'weather', charged: 5_000n });
    await background.drain(1000);
    expect(log.rows).toEqual([
      { requestId: 'req-3', payerWallet: 'Payer111', model: 'weather', provider: 'gateway', tokensIn: 0, tokensOut: 0, amountChargedAtomic: 5_000n, createdAt: expect.any(Date) },
    ]);
  });

  it('writes in the background: the caller returns before the row, and a failing log is logged, never thrown', async () => {
    const { spend, log, background, failures } = recorder();
    log.failing = true;
    expect(() => spend.service({ requestId: 'req-4', payer: 'Payer111', serviceId: 'weather', charged: 1n })).not.toThrow();
    expect(background.pending).toBe(1);
    await background.drain(1000);
    expect(failures).toEqual([expect.objectContaining({ task: 'spend log' })]);
  });
});
