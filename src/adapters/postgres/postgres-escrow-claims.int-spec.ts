import { escrowClaimsContract, newClaim } from '../../../test/contracts/escrow-claims.contract';
import { escrowReceipt } from '../../../test/contracts/receipt-store.contract';
import { createTestDatabase } from '../../../test/support/postgres';
import { serviceAvailable } from '../../../test/support/services';
import { emptiedPgliteEachTime, migratedDataDir } from '../../../test/support/pglite-data-dir';
import { Secret } from '../../config/secret';
import { Database } from './database';
import { PostgresEscrowClaims } from './postgres-escrow-claims';
import { PostgresReceiptStore } from './postgres-receipt-store';

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('PostgresEscrowClaims on PostgreSQL (local server)', () => {
  escrowClaimsContract(async () => {
    const testDb = await createTestDatabase();
    // Two data sources, as two instances have: their leases race for row locks on separate connections.
    const first = await Database.open({ kind: 'postgres', url: new Secret(testDb.url) });
    const second = await Database.open({ kind: 'postgres', url: new Secret(testDb.url) });
    return {
      claims: new PostgresEscrowClaims(first.dataSource),
      other: new PostgresEscrowClaims(second.dataSource),
      receipts: new PostgresReceiptStore(first.dataSource),
      close: async () => {
        await first.close();
        await second.close();
        await testDb.drop();
      },
    };
  });
});

describe('PostgresEscrowClaims on embedded PGlite', () => {
  // PGlite is single-session: the other instance shares the one connection.
  const emptied = emptiedPgliteEachTime();
  escrowClaimsContract(async () => {
    const { dataSource } = await emptied();
    const claims = new PostgresEscrowClaims(dataSource);
    return { claims, other: claims, receipts: new PostgresReceiptStore(dataSource), close: async () => undefined };
  });

  it('keeps queued claims across a restart on the same data directory', async () => {
    const directory = await migratedDataDir();
    const claim = newClaim({ depositAtomic: 9_007_199_254_740_995n, claimAtomic: 9_007_199_254_740_993n });
    const now = new Date('2026-11-22T10:00:00.000Z');
    const first = await Database.open({ kind: 'pglite', dataDir: directory });
    try {
      await new PostgresReceiptStore(first.dataSource).create(escrowReceipt({ id: claim.receiptId }));
      expect(await new PostgresEscrowClaims(first.dataSource).open(claim, now)).toBe(true);
    } finally {
      await first.close();
    }

    const second = await Database.open({ kind: 'pglite', dataDir: directory });
    try {
      const leased = await new PostgresEscrowClaims(second.dataSource).lease(now, 'restarted', new Date(now.getTime() + 60_000));
      expect(leased).toEqual(expect.objectContaining({ ...claim, status: 'in_progress' }));
    } finally {
      await second.close();
    }
  });

  it('refuses, in the schema, a claim above its deposit, a negative deposit, and an escrow receipt without its slot', async () => {
    const database = await Database.open({ kind: 'pglite', dataDir: await migratedDataDir() });
    const claims = new PostgresEscrowClaims(database.dataSource);
    const receipts = new PostgresReceiptStore(database.dataSource);
    try {
      const above = newClaim({ depositAtomic: 100n, claimAtomic: 101n });
      const negative = newClaim({ depositAtomic: -1n, claimAtomic: -1n });
      for (const claim of [above, negative]) await receipts.create(escrowReceipt({ id: claim.receiptId }));
      await expect(claims.open(above, new Date())).rejects.toThrow(/escrow_claims_check|claim_atomic/);
      await expect(claims.open(negative, new Date())).rejects.toThrow(/escrow_claims_.*check/);
      expect(await claims.counts()).toEqual({ pending: 0, inProgress: 0, failed: 0, completed: 0 });
      const halfEscrow = escrowReceipt({ escrow: { address: 'Esc1111111111111111111111111111111111111111', expirySlot: null as unknown as bigint, claimSignature: null } });
      await expect(receipts.create(halfEscrow)).rejects.toThrow(/receipts_escrow_check/);
    } finally {
      await database.close();
    }
  });
});
