import { randomUUID } from 'node:crypto';
import type { SpendRecord } from '../../src/modules/billing/domain/spend-record';
import type { SpendLog } from '../../src/modules/billing/ports/spend-log';

export function spendRecord(overrides: Partial<SpendRecord> = {}): SpendRecord {
  return {
    requestId: randomUUID(),
    payerWallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
    model: 'openai/gpt-4o-mini',
    provider: 'openai',
    tokensIn: 1234,
    tokensOut: 567,
    amountChargedAtomic: 21_505n,
    createdAt: new Date('2026-11-22T10:00:00.123Z'),
    ...overrides,
  };
}

/** The behaviour every SpendLog adapter must have; each adapter's spec runs it against its own. */
export function spendLogContract(open: () => Promise<{ log: SpendLog; close: () => Promise<void> }>): void {
  let log: SpendLog;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ log, close } = await open());
  });
  afterAll(() => close());

  it('returns a recorded row as written', async () => {
    const entry = spendRecord();
    await log.record(entry);
    expect(await log.findByRequestId(entry.requestId)).toEqual(entry);
  });

  it('returns null for an unknown request id', async () => {
    expect(await log.findByRequestId(randomUUID())).toBeNull();
  });

  it('keeps free requests with no payer and zero charge', async () => {
    const entry = spendRecord({ payerWallet: null, amountChargedAtomic: 0n, model: 'nvidia/gpt-oss-120b', provider: 'nvidia' });
    await log.record(entry);
    expect(await log.findByRequestId(entry.requestId)).toEqual(entry);
  });

  it('keeps atomic amounts exact beyond 2^53', async () => {
    const entry = spendRecord({ amountChargedAtomic: 9_007_199_254_740_993n });
    await log.record(entry);
    expect((await log.findByRequestId(entry.requestId))?.amountChargedAtomic).toBe(9_007_199_254_740_993n);
  });

  it('records a request once: a second write for the same request id changes nothing', async () => {
    const entry = spendRecord();
    await log.record(entry);
    await log.record({ ...entry, amountChargedAtomic: 999n, tokensOut: 1 });
    expect(await log.findByRequestId(entry.requestId)).toEqual(entry);
  });

  it('takes concurrent writes for different requests', async () => {
    const entries = Array.from({ length: 20 }, () => spendRecord());
    await Promise.all(entries.map((entry) => log.record(entry)));
    for (const entry of entries) expect(await log.findByRequestId(entry.requestId)).toEqual(entry);
  });

  it('returns copies: changing a returned row does not change the log', async () => {
    const entry = spendRecord();
    await log.record(entry);
    const first = (await log.findByRequestId(entry.requestId)) as SpendRecord;
    first.tokensIn = 0;
    expect((await log.findByRequestId(entry.requestId))?.tokensIn).toBe(entry.tokensIn);
  });
}
