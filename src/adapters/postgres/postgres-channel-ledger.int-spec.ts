import { randomBytes, randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import type { DataSource } from 'typeorm';
import { pendingReceipt } from '../../../test/contracts/receipt-store.contract';
import { createTestDatabase } from '../../../test/support/postgres';
import { emptiedPgliteEachTime } from '../../../test/support/pglite-data-dir';
import { serviceAvailable } from '../../../test/support/services';
import { Secret } from '../../config/secret';
import type { ChannelDraw, ChannelLedger, NewChannel } from '../../modules/payments/ports/channel-ledger';
import { Database } from './database';
import { PostgresChannelLedger } from './postgres-channel-ledger';
import { PostgresReceiptStore } from './postgres-receipt-store';

/** The ledgers of two instances (one and the same on PGlite, which is single-session) over one emptied database. */
interface World {
  ledger: ChannelLedger;
  other: ChannelLedger;
  receipts: PostgresReceiptStore;
  dataSource: DataSource;
}

const T0 = new Date('2026-11-27T10:00:00.000Z');
const later = (ms: number): Date => new Date(T0.getTime() + ms);
const base58 = (): string => bs58.encode(randomBytes(32));

function newChannel(overrides: Partial<NewChannel> = {}): NewChannel {
  return {
    id: base58(),
    agentWallet: base58(),
    sessionKey: base58(),
    custody: base58(),
    deposited: 9_007_199_254_740_993n,
    fundingSignature: bs58.encode(randomBytes(64)),
    openDigest: randomBytes(32).toString('base64'),
    fundingReceiptId: randomUUID(),
    ...overrides,
  };
}

function channelLedgerSuite(name: string, open: () => Promise<{ empty: () => Promise<World>; close: () => Promise<void> }>): void {
  describe(name, () => {
    let world: World;
    let opened: { empty: () => Promise<World>; close: () => Promise<void> };
    beforeAll(async () => {
      opened = await open();
    });
    afterAll(() => opened.close());
    beforeEach(async () => {
      world = await opened.empty();
    });

    async function openChannel(overrides: Partial<NewChannel> = {}): Promise<string> {
      const { channel } = await world.ledger.createOpening(newChannel(overrides));
      await world.ledger.markOpen(channel.id);
      return channel.id;
    }

    /** A draw of `amount` up to `cumulative`, its pending receipt written as the payment flow writes it at acceptance. */
    async function draw(channelId: string, cumulative: bigint, amount: bigint, at = later(1_000)): Promise<ChannelDraw> {
      const receipt = pendingReceipt({ scheme: 'channel', amountQuotedAtomic: amount, amountPaidAtomic: amount });
      await world.receipts.create(receipt);
      return {
        channelId,
        cumulative,
        amount,
        expirySlot: 9_007_199_254_740_995n,
        nonce: 42n,
        requestDigest: randomBytes(32).toString('base64'),
        signature: randomBytes(64).toString('base64'),
        receiptId: receipt.id,
        spend: { requestId: receipt.requestId, payer: receipt.payerWallet, model: 'google/gemini-2.5-flash', provider: 'google', inputTokens: 12, outputTokens: 34, chargedAtomic: amount },
        at,
      };
    }

    /** What a draw writes besides the channel: its voucher, its receipt's status and its spend row. */
    async function written(recorded: ChannelDraw): Promise<{ vouchers: number; receipt: string | undefined; spend: number }> {
      const count = async (sql: string, parameter: string): Promise<number> => ((await world.dataSource.query(sql, [parameter])) as { n: number }[])[0].n;
      return {
        vouchers: await count('SELECT count(*)::int AS n FROM channel_vouchers WHERE receipt_id = $1', recorded.receiptId),
        receipt: (await world.receipts.find(recorded.receiptId))?.status,
        spend: await count('SELECT count(*)::int AS n FROM spend_log WHERE request_id = $1', recorded.spend.requestId),
      };
    }

    it('writes a channel opening once per funding transfer, and answers the first for a repeat', async () => {
      const first = newChannel();
      const created = await world.ledger.createOpening(first);
      expect(created).toEqual({ created: true, channel: expect.objectContaining({ ...first, status: 'opening', lastCumulative: 0n, lastDrawAt: null, closeSignature: null }) });

      const repeats = await Promise.all([1, 2].map(() => world.other.createOpening(newChannel({ fundingSignature: first.fundingSignature }))));
      expect(repeats).toEqual([
        { created: false, channel: created.channel },
        { created: false, channel: created.channel },
      ]);
      expect(await world.ledger.find(first.id)).toEqual(created.channel);
    });

    it('opens and drops only an opening channel', async () => {
      const dropped = (await world.ledger.createOpening(newChannel())).channel.id;
      await world.ledger.dropOpening(dropped);
      await world.ledger.markOpen(dropped);
      expect(await world.ledger.find(dropped)).toBeNull();

      const id = await openChannel();
      await world.ledger.dropOpening(id);
      expect((await world.ledger.find(id))?.status).toBe('open');
      await world.ledger.requestClose(id, T0);
      await world.ledger.markOpen(id);
      expect((await world.ledger.find(id))?.status).toBe('closing');
    });

    it('lists channels still opening from before a time', async () => {
      const opening = (await world.ledger.createOpening(newChannel())).channel;
      await openChannel();
      expect(await world.ledger.openingBefore(new Date(opening.createdAt.getTime() + 1), 10)).toEqual([opening]);
      expect(await world.ledger.openingBefore(opening.createdAt, 10)).toEqual([]);
    });

    it('records a draw: the voucher, the receipt settled, the spend row, the channel advanced', async () => {
      const id = await openChannel();
      const recorded = await draw(id, 2_625n, 2_625n);
      expect(await world.ledger.recordDraw(recorded)).toBe('recorded');

      expect(await world.ledger.find(id)).toEqual(expect.objectContaining({ lastCumulative: 2_625n, lastDrawAt: recorded.at, status: 'open' }));
      expect(await world.receipts.find(recorded.receiptId)).toEqual(expect.objectContaining({ status: 'settled', amountChargedAtomic: 2_625n, settledAt: recorded.at }));
      expect(
        await world.dataSource.query('SELECT payer_wallet, model, provider, tokens_in, tokens_out, amount_charged_atomic, created_at FROM spend_log WHERE request_id = $1', [recorded.spend.requestId]),
      ).toEqual([{ payer_wallet: recorded.spend.payer, model: recorded.spend.model, provider: 'google', tokens_in: 12, tokens_out: 34, amount_charged_atomic: '2625', created_at: recorded.at }]);
      expect(await world.dataSource.query('SELECT cumulative_atomic, amount_atomic, expiry_slot, nonce, request_digest, signature FROM channel_vouchers WHERE channel_id = $1', [id])).toEqual([
        { cumulative_atomic: '2625', amount_atomic: '2625', expiry_slot: '9007199254740995', nonce: '42', request_digest: recorded.requestDigest, signature: recorded.signature },
      ]);

      const next = await draw(id, 5_250n, 2_625n, later(2_000));
      expect(await world.ledger.recordDraw(next)).toBe('recorded');
      expect(await world.ledger.find(id)).toEqual(expect.objectContaining({ lastCumulative: 5_250n, lastDrawAt: next.at }));
    });

    it('writes nothing for a draw that lost its race: a stale cumulative, or a close that moved first', async () => {
      const id = await openChannel();
      expect(await world.ledger.recordDraw(await draw(id, 100n, 100n))).toBe('recorded');
      const stale = await draw(id, 100n, 100n);
      const skipping = await draw(id, 300n, 100n);
      expect(await world.ledger.recordDraw(stale)).toBe('race');
      expect(await world.ledger.recordDraw(skipping)).toBe('race');

      await world.ledger.requestClose(id, T0);
      const afterClose = await draw(id, 200n, 100n);
      expect(await world.ledger.recordDraw(afterClose)).toBe('race');

      for (const lost of [stale, skipping, afterClose]) expect(await written(lost)).toEqual({ vouchers: 0, receipt: 'pending', spend: 0 });
      expect(await world.ledger.find(id)).toEqual(expect.objectContaining({ lastCumulative: 100n, status: 'closing' }));
    });

    it('records exactly one of 20 concurrent draws to the same cumulative', async () => {
      const id = await openChannel();
      const draws = await Promise.all(Array.from({ length: 20 }, () => draw(id, 500n, 500n)));
      const outcomes = await Promise.all(draws.map((each, index) => (index % 2 === 0 ? world.ledger : world.other).recordDraw(each)));

      expect(outcomes.filter((outcome) => outcome === 'recorded')).toHaveLength(1);
      const results = await Promise.all(draws.map(written));
      expect(results.filter((result) => result.receipt === 'settled')).toEqual([{ vouchers: 1, receipt: 'settled', spend: 1 }]);
      expect(results.filter((result) => result.receipt === 'pending')).toHaveLength(19);
      expect((await world.ledger.find(id))?.lastCumulative).toBe(500n);
    });

    it('requests a close once: open to closing with one job due; an opening channel stays; unknown is null', async () => {
      const id = await openChannel();
      const closing = await world.ledger.requestClose(id, T0);
      expect(closing).toEqual(expect.objectContaining({ id, status: 'closing' }));
      expect(await world.other.requestClose(id, later(60_000))).toEqual(closing);
      expect(await world.ledger.closeJobCounts()).toEqual({ pending: 1, inProgress: 0, completed: 0 });
      expect(await world.ledger.leaseClose(later(-1), 'early', later(60_000))).toBeNull();

      const opening = (await world.ledger.createOpening(newChannel())).channel;
      expect(await world.ledger.requestClose(opening.id, T0)).toEqual(opening);
      expect(await world.ledger.requestClose(base58(), T0)).toBeNull();
      expect(await world.ledger.closeJobCounts()).toEqual({ pending: 1, inProgress: 0, completed: 0 });
    });

    it('leases a close to one holder at a time; a lapsed lease passes on, and its old holder can no longer move the job', async () => {
      const id = await openChannel();
      await world.ledger.recordDraw(await draw(id, 700n, 700n));
      await world.ledger.requestClose(id, T0);
      const leased = await world.ledger.leaseClose(T0, 'a', later(30_000));
      expect(leased).toEqual({ channel: expect.objectContaining({ id, status: 'closing', lastCumulative: 700n }), attempts: 0, sent: [] });
      expect(await world.other.leaseClose(later(29_999), 'b', later(60_000))).toBeNull();

      const first = { signature: 'sig-1', signedTransaction: 'AQID', leg: 'payout' as const };
      expect(await world.other.recordCloseAttempt(id, 'b', first)).toBe(false);
      expect(await world.ledger.recordCloseAttempt(id, 'a', first)).toBe(true);

      const taken = await world.other.leaseClose(later(30_000), 'b', later(90_000));
      expect(taken).toEqual(expect.objectContaining({ attempts: 0, sent: [first] }));
      expect(await world.ledger.recordCloseAttempt(id, 'a', { signature: 'sig-late', signedTransaction: 'BAUG', leg: 'payout' as const })).toBe(false);
      expect(await world.ledger.completeClose(id, 'a', 'sig-1')).toBe(false);
      await world.ledger.retryClose(id, 'a', T0, 'late');
      expect(await world.ledger.closeJobCounts()).toEqual({ pending: 0, inProgress: 1, completed: 0 });

      const second = { signature: 'sig-2', signedTransaction: 'BwgJ', leg: 'refund' as const };
      expect(await world.other.recordCloseAttempt(id, 'b', second)).toBe(true);
      await world.other.retryClose(id, 'b', later(120_000), 'x'.repeat(1_000));
      expect(await world.ledger.closeJobCounts()).toEqual({ pending: 1, inProgress: 0, completed: 0 });
      expect(await world.ledger.leaseClose(later(119_999), 'c', later(150_000))).toBeNull();
      expect(await world.ledger.leaseClose(later(120_000), 'c', later(150_000))).toEqual(expect.objectContaining({ attempts: 1, sent: [first, second] }));
      const [{ last_error: lastError }] = (await world.dataSource.query('SELECT last_error FROM channel_closes WHERE channel_id = $1', [id])) as { last_error: string }[];
      expect(lastError).toHaveLength(500);
    });

    it('completes a close: the job done and the channel closed with its signature, its custody no longer in use', async () => {
      const custody = base58();
      const id = await openChannel({ custody });
      const stillOpen = await openChannel({ custody });
      const other = await openChannel();
      await world.ledger.requestClose(id, T0);
      await world.ledger.leaseClose(T0, 'a', later(30_000));
      expect(await world.ledger.completeClose(id, 'a', 'landed')).toBe(true);
      expect(await world.ledger.completeClose(id, 'a', 'again')).toBe(false);

      expect(await world.ledger.find(id)).toEqual(expect.objectContaining({ status: 'closed', closeSignature: 'landed' }));
      expect(await world.ledger.closeJobCounts()).toEqual({ pending: 0, inProgress: 0, completed: 1 });
      expect(await world.ledger.requestClose(id, later(1))).toEqual(expect.objectContaining({ status: 'closed' }));
      expect(await world.ledger.custodiesInUse()).toEqual([custody, (await world.ledger.find(other))!.custody].sort());

      await world.ledger.requestClose(stillOpen, T0);
      await world.ledger.leaseClose(T0, 'a', later(30_000));
      await world.ledger.completeClose(stillOpen, 'a', 'landed-too');
      expect(await world.ledger.custodiesInUse()).toEqual([(await world.ledger.find(other))!.custody]);
    });

    it('selects open channels idle since before a time, by their last draw or else their open', async () => {
      const drawn = await openChannel();
      await world.ledger.recordDraw(await draw(drawn, 10n, 10n, T0));
      const undrawn = await openChannel();
      const { createdAt } = (await world.ledger.find(undrawn))!;
      await openChannel().then((id) => world.ledger.requestClose(id, T0));
      await world.ledger.createOpening(newChannel());

      expect(await world.ledger.idleBefore(T0, 10)).toEqual([]);
      expect(await world.ledger.idleBefore(later(1), 10)).toEqual([drawn]);
      const afterBoth = new Date(Math.max(createdAt.getTime(), T0.getTime()) + 1);
      expect(await world.ledger.idleBefore(afterBoth, 10)).toEqual(createdAt < T0 ? [undrawn, drawn] : [drawn, undrawn]);
      expect(await world.ledger.idleBefore(afterBoth, 1)).toHaveLength(1);
    });
  });
}

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('PostgresChannelLedger on PostgreSQL (local server)', () => {
  channelLedgerSuite('two instances', async () => {
    const testDb = await createTestDatabase();
    // Two data sources, as two instances have: their draws and leases race for row locks on separate connections.
    const first = await Database.open({ kind: 'postgres', url: new Secret(testDb.url) });
    const second = await Database.open({ kind: 'postgres', url: new Secret(testDb.url) });
    const world: World = {
      ledger: new PostgresChannelLedger(first.dataSource),
      other: new PostgresChannelLedger(second.dataSource),
      receipts: new PostgresReceiptStore(first.dataSource),
      dataSource: first.dataSource,
    };
    return {
      empty: async () => {
        await first.dataSource.query('TRUNCATE channel_closes, channel_vouchers, channels, spend_log, receipts');
        return world;
      },
      close: async () => {
        await first.close();
        await second.close();
        await testDb.drop();
      },
    };
  });
});

describe('PostgresChannelLedger on embedded PGlite', () => {
  const emptied = emptiedPgliteEachTime();
  channelLedgerSuite('one instance', async () => ({
    empty: async () => {
      const { dataSource } = await emptied();
      const ledger = new PostgresChannelLedger(dataSource);
      return { ledger, other: ledger, receipts: new PostgresReceiptStore(dataSource), dataSource };
    },
    close: async () => undefined,
  }));
});
