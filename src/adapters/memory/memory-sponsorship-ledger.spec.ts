import { sponsorshipLedgerContract } from '../../../test/contracts/sponsorship-ledger.contract';
import { MemorySponsorshipLedger } from './memory-sponsorship-ledger';

describe('MemorySponsorshipLedger', () => {
  sponsorshipLedgerContract(async () => ({ ledger: new MemorySponsorshipLedger(), close: async () => undefined }));

  it('keeps only the current and the previous window', async () => {
    const ledger = new MemorySponsorshipLedger();
    const bound = { key: 'global', limit: 100n };
    await ledger.charge(1, [bound], 10n);
    await ledger.charge(2, [bound], 20n);
    await ledger.charge(3, [bound], 30n);
    expect([await ledger.total(1, 'global'), await ledger.total(2, 'global'), await ledger.total(3, 'global')]).toEqual([0n, 20n, 30n]);
  });
});
