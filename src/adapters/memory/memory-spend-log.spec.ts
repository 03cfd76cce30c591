import { spendLogContract, spendRecord } from '../../../test/contracts/spend-log.contract';
import { MemorySpendLog } from './memory-spend-log';

describe('MemorySpendLog', () => {
  spendLogContract(async () => ({ log: new MemorySpendLog(), close: async () => undefined }));

  it('forgets the oldest rows past its capacity', async () => {
    const log = new MemorySpendLog(2);
    const [a, b, c] = [spendRecord(), spendRecord(), spendRecord()];
    for (const entry of [a, b, c]) await log.record(entry);
    expect(await log.findByRequestId(a.requestId)).toBeNull();
    expect(await log.findByRequestId(b.requestId)).toEqual(b);
    expect(await log.findByRequestId(c.requestId)).toEqual(c);
  });
});
