import { exposureLedgerContract } from '../../../test/contracts/exposure-ledger.contract';
import { MemoryExposureLedger } from './memory-exposure-ledger';

describe('MemoryExposureLedger', () => {
  exposureLedgerContract(async () => ({ ledger: new MemoryExposureLedger(), close: async () => undefined }));

  it('forgets a landed debit once no balance read could predate it', async () => {
    let now = 0;
    const ledger = new MemoryExposureLedger(() => now);
    expect(await ledger.admit({ source: 's', id: 'a', amount: 100n }, 100n, 0, 120_000)).toBe(true);
    await ledger.landed('s', 'a');
    now = 61_000;
    // Even a read at version 0 no longer counts it.
    expect(await ledger.admit({ source: 's', id: 'b', amount: 100n }, 100n, 0, 120_000)).toBe(true);
  });
});
