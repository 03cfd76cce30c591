import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase } from '../../../test/support/postgres';
import { serviceAvailable } from '../../../test/support/services';
import { migratedDataDir } from '../../../test/support/pglite-data-dir';
import { Secret } from '../../config/secret';
import { GatewayError } from '../../errors/gateway-error';
import type { BudgetLimits, BudgetWindow } from '../../modules/orgs/domain/budget';
import type { Actor, Team } from '../../modules/orgs/domain/org';
import { ActorRevoked } from '../../modules/orgs/ports/org-store';
import type { ReceiptStatus } from '../../modules/payments/domain/receipt';
import { Database } from './database';
import { PostgresBudgetReservations, PostgresBudgetStore } from './postgres-budgets';
import { PostgresOrgStore } from './postgres-org-store';

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ADMIN: Actor = { kind: 'admin' };
/** 0.10 USDC: what each test request pays. */
const A = 100_000n;
const UNCAPPED: BudgetLimits = { hourly: null, daily: null, monthly: null };

const wallet = (): string => Array.from(randomBytes(44), (byte) => BASE58[byte % BASE58.length]).join('');

async function createTeam(dataSource: DataSource, name: string, wallets: string[]): Promise<Team> {
  const orgs = new PostgresOrgStore(dataSource);
  const now = new Date();
  const org = { id: randomUUID(), name: 'Acme', createdAt: now, updatedAt: now };
  await orgs.createOrg(org, wallet(), ADMIN);
  const team: Team = { id: randomUUID(), orgId: org.id, name, createdAt: now, updatedAt: now };
  await orgs.createTeam(team, ADMIN);
  for (const walletAddress of wallets) await orgs.addTeamWallet(org.id, { teamId: team.id, walletAddress, createdAt: now, consented: true }, ADMIN);
  return team;
}

/** The receipt the paid path writes after reserving, so the reservation outlives the orphan expiry. */
async function writeReceipt(dataSource: DataSource, id: string, payer: string, status: ReceiptStatus = 'pending'): Promise<void> {
  await dataSource.query(
    `INSERT INTO receipts (id, status, scheme, network, asset, payer_wallet, pay_to, transaction_signature, amount_quoted_atomic,
       amount_paid_atomic, amount_charged_atomic, endpoint, request_id, created_at, replay_key, signed_transaction)
     VALUES ($1, $2, 'exact', 'solana', $3, $4, $3, 'sig', 0, 0, 0, '/v1/chat/completions', $5, now(), $6, 'tx')`,
    [id, status, wallet(), payer, randomUUID(), randomUUID()],
  );
}

async function linesOf(dataSource: DataSource, receiptId: string): Promise<{ status: string; amount_atomic: string }[]> {
  return (await dataSource.query('SELECT status, amount_atomic FROM budget_reservations WHERE receipt_id = $1 ORDER BY budget_id', [receiptId])) as { status: string; amount_atomic: string }[];
}

const refusal = (payer: string, window: BudgetWindow, owner: string, left: string, limit: string) =>
  `budget exceeded for wallet ${payer}: the ${window} budget of ${owner} has ${left} left of ${limit} and this request pays 0.100000`;

function budgetsSuite(open: () => Promise<{ dataSource: DataSource; close: () => Promise<void> }>): void {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let clock: Date;
  let store: PostgresBudgetStore;
  let reservations: PostgresBudgetReservations;

  beforeAll(async () => {
    ({ dataSource, close } = await open());
    store = new PostgresBudgetStore(dataSource, () => clock);
    reservations = new PostgresBudgetReservations(dataSource, () => clock);
  });
  beforeEach(() => {
    clock = new Date('2026-11-25T10:30:00.000Z');
  });
  afterAll(() => close());

  /** reserve() followed by the pending receipt the paid path writes. */
  async function pay(payer: string, amount = A): Promise<GatewayError | null> {
    const receiptId = randomUUID();
    const refused = await reservations.reserve(receiptId, payer, amount);
    if (!refused) await writeReceipt(dataSource, receiptId, payer);
    return refused;
  }

  it('round-trips the limits of a wallet and of a team, auditing the team changes in its org', async () => {
    const payer = wallet();
    const member = wallet();
    const team = await createTeam(dataSource, 'Research', [member]);
    const subject = { kind: 'team', orgId: team.orgId, teamId: team.id } as const;
    expect(await store.limits({ kind: 'wallet', wallet: payer })).toBeNull();
    expect(await store.limits(subject)).toBeNull();
    expect(await reservations.isBudgeted(payer)).toBe(false);
    expect(await reservations.isBudgeted(member)).toBe(false);

    await store.setLimits({ kind: 'wallet', wallet: payer }, { hourly: 1_000_000n, daily: null, monthly: 9_000_000_000_000n }, ADMIN);
    await store.setLimits({ kind: 'wallet', wallet: payer }, { hourly: 2_500_000n, daily: 0n, monthly: null }, ADMIN);
    expect(await store.limits({ kind: 'wallet', wallet: payer })).toEqual({ hourly: 2_500_000n, daily: 0n, monthly: null });

    const keyId = randomUUID();
    const key: Actor = { kind: 'key', keyId };
    const orgs = new PostgresOrgStore(dataSource);
    const issued = { id: keyId, orgId: team.orgId, name: 'ci', role: 'admin', createdAt: clock, revokedAt: null } as const;
    await orgs.issueKey(issued, randomBytes(32), ADMIN);
    await store.setLimits(subject, { ...UNCAPPED, daily: 1_500_000n }, ADMIN);
    await store.setLimits(subject, { hourly: 1n, daily: null, monthly: 3_000_000n }, key);
    expect(await store.limits(subject)).toEqual({ hourly: 1n, daily: null, monthly: 3_000_000n });
    expect(await store.limits({ ...subject, orgId: randomUUID() })).toBeNull();
    expect(await store.limits({ ...subject, teamId: 'not-a-uuid' })).toBeNull();
    expect(await reservations.isBudgeted(payer)).toBe(true);
    expect(await reservations.isBudgeted(member)).toBe(true);
    expect(await reservations.isBudgeted(wallet())).toBe(false);

    const audit = (await dataSource.query(`SELECT actor, before, after FROM org_audit WHERE org_id = $1 AND action = 'budget.set' ORDER BY at`, [team.orgId])) as unknown[];
    expect(audit).toEqual([
      { actor: 'admin', before: null, after: { team_id: team.id, hourly: null, daily: '1.500000', monthly: null } },
      {
        actor: `key:${keyId}`,
        before: { team_id: team.id, hourly: null, daily: '1.500000', monthly: null },
        after: { team_id: team.id, hourly: '0.000001', daily: null, monthly: '3.000000' },
      },
    ]);
    await expect(store.setLimits({ ...subject, orgId: randomUUID() }, UNCAPPED, ADMIN)).rejects.toThrow(/is not a team of org/);
    await orgs.revokeKey(team.orgId, keyId, clock, ADMIN);
    await expect(store.setLimits(subject, UNCAPPED, key)).rejects.toBeInstanceOf(ActorRevoked);
    await expect(store.setLimits({ kind: 'wallet', wallet: payer }, UNCAPPED, key)).rejects.toBeInstanceOf(ActorRevoked);
    expect(await store.limits(subject)).toEqual({ hourly: 1n, daily: null, monthly: 3_000_000n });
    await expect(store.setLimits({ kind: 'wallet', wallet: wallet() }, { ...UNCAPPED, hourly: -1n }, ADMIN)).rejects.toThrow(/hourly_atomic_check/);
  });

  it.each(['hourly', 'daily', 'monthly'] as const)('admits up to the %s limit and refuses past it, reserving nothing', async (window) => {
    const payer = wallet();
    await store.setLimits({ kind: 'wallet', wallet: payer }, { ...UNCAPPED, [window]: 3n * A }, ADMIN);
    expect(await pay(payer)).toBeNull();
    expect(await pay(payer, 2n * A)).toBeNull();
    const receiptId = randomUUID();
    const refused = await reservations.reserve(receiptId, payer, A);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ code: 'budget.exceeded', type: 'bad_request', message: refusal(payer, window, 'the wallet', '0.000000', '0.300000') });
    expect(await linesOf(dataSource, receiptId)).toEqual([]);
    expect(await pay(payer, 0n)).toBeNull();
  });

  it('admits a wallet without any budget, writing nothing', async () => {
    const receiptId = randomUUID();
    expect(await reservations.reserve(receiptId, wallet(), 10n ** 15n)).toBeNull();
    expect(await linesOf(dataSource, receiptId)).toEqual([]);
  });

  it("binds a payer to a team's budget only through a consented membership", async () => {
    const payer = wallet();
    const team = await createTeam(dataSource, 'unconsented', [payer]);
    await store.setLimits({ kind: 'team', orgId: team.orgId, teamId: team.id }, { ...UNCAPPED, daily: 0n }, ADMIN);
    expect(await reservations.isBudgeted(payer)).toBe(true);
    await dataSource.query('UPDATE team_wallets SET consented = false WHERE wallet_address = $1', [payer]);
    expect(await reservations.isBudgeted(payer)).toBe(false);
    expect(await pay(payer)).toBeNull();
  });

  it('reserves against the wallet budget and every team budget of the payer, and a refusal by one reserves nowhere', async () => {
    const payer = wallet();
    const teammate = wallet();
    const research = await createTeam(dataSource, 'Research', [payer, teammate]);
    const ops = await createTeam(dataSource, 'Ops', [payer]);
    await store.setLimits({ kind: 'wallet', wallet: payer }, { ...UNCAPPED, daily: 10n * A }, ADMIN);
    await store.setLimits({ kind: 'team', orgId: research.orgId, teamId: research.id }, { ...UNCAPPED, hourly: 3n * A }, ADMIN);
    await store.setLimits({ kind: 'team', orgId: ops.orgId, teamId: ops.id }, UNCAPPED, ADMIN);

    const first = randomUUID();
    expect(await reservations.reserve(first, payer, A)).toBeNull();
    expect(await linesOf(dataSource, first)).toEqual([
      { status: 'held', amount_atomic: '100000' },
      { status: 'held', amount_atomic: '100000' },
      { status: 'held', amount_atomic: '100000' },
    ]);
    expect(await pay(teammate, 2n * A)).toBeNull();

    const refusedId = randomUUID();
    const refused = await reservations.reserve(refusedId, payer, A);
    expect(refused?.message).toBe(refusal(payer, 'hourly', 'a team it is in', '0.000000', '0.300000'));
    expect(await linesOf(dataSource, refusedId)).toEqual([]);
    // The wallet's and Ops' budgets, which had room, still hold only the first reservation.
    const untouched = (await dataSource.query('SELECT receipt_id FROM budget_reservations WHERE budget_id IN (SELECT id FROM budgets WHERE wallet_address = $1 OR team_id = $2)', [
      payer,
      ops.id,
    ])) as unknown[];
    expect(untouched).toEqual([{ receipt_id: first }, { receipt_id: first }]);
    expect((await reservations.reserve(randomUUID(), teammate, A))?.message).toBe(refusal(teammate, 'hourly', 'a team it is in', '0.000000', '0.300000'));
  });

  it('names what is left when the request pays more than it', async () => {
    const payer = wallet();
    await store.setLimits({ kind: 'wallet', wallet: payer }, { ...UNCAPPED, daily: 150_000n }, ADMIN);
    expect(await pay(payer)).toBeNull();
    expect((await reservations.reserve(randomUUID(), payer, A))?.message).toBe(refusal(payer, 'daily', 'the wallet', '0.050000', '0.150000'));
    // A limit lowered below what the window used leaves nothing, never a negative amount.
    await store.setLimits({ kind: 'wallet', wallet: payer }, { ...UNCAPPED, daily: 1n }, ADMIN);
    expect((await reservations.reserve(randomUUID(), payer, A))?.message).toBe(refusal(payer, 'daily', 'the wallet', '0.000000', '0.000001'));
  });

  it('follows the receipt: settled lines become spend, failed and not_charged ones are released, twice is harmless', async () => {
    const payer = wallet();
    const subject = { kind: 'wallet', wallet: payer } as const;
    await store.setLimits(subject, { ...UNCAPPED, daily: 2n * A }, ADMIN);
    const settled = randomUUID();
    expect(await reservations.reserve(settled, payer, A)).toBeNull();
    await writeReceipt(dataSource, settled, payer);
    expect(await store.spend(subject, clock)).toEqual({ hourly: 0n, daily: 0n, monthly: 0n });
    await reservations.follow(settled, 'settled');
    await reservations.follow(settled, 'settled');
    expect(await linesOf(dataSource, settled)).toEqual([{ status: 'settled', amount_atomic: '100000' }]);
    await dataSource.query(`UPDATE receipts SET status = 'settled' WHERE id = $1`, [settled]);
    expect(await store.spend(subject, clock)).toEqual({ hourly: A, daily: A, monthly: A });

    for (const status of ['failed', 'not_charged'] as const) {
      const released = randomUUID();
      expect(await reservations.reserve(released, payer, A)).toBeNull();
      expect(await reservations.reserve(randomUUID(), payer, A)).not.toBeNull();
      await reservations.follow(released, status);
      await reservations.follow(released, status);
      await reservations.follow(released, 'settled');
      expect(await linesOf(dataSource, released)).toEqual([]);
    }
    expect(await pay(payer)).toBeNull();
    expect(await store.spend(subject, clock)).toEqual({ hourly: A, daily: A, monthly: A });
    expect(await store.spend({ kind: 'wallet', wallet: wallet() }, clock)).toEqual({ hourly: 0n, daily: 0n, monthly: 0n });
  });

  it('makes lines still held after their receipt ended follow it: settled at what was charged, released when nothing was', async () => {
    const payer = wallet();
    const subject = { kind: 'wallet', wallet: payer } as const;
    await store.setLimits(subject, { ...UNCAPPED, daily: 10n * A }, ADMIN);
    const [claimed, released, pending] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [claimed, released, pending]) {
      expect(await reservations.reserve(id, payer, A)).toBeNull();
      await writeReceipt(dataSource, id, payer);
    }
    // The receipts ended, but their instance died before the lines could follow (an escrow claim of less than the deposit, a release).
    await dataSource.query(`UPDATE receipts SET status = 'settled', amount_charged_atomic = $2 WHERE id = $1`, [claimed, (A / 4n).toString()]);
    await dataSource.query(`UPDATE receipts SET status = 'not_charged' WHERE id = $1`, [released]);

    expect(await reservations.followEnded()).toBe(2);
    expect(await linesOf(dataSource, claimed)).toEqual([{ status: 'settled', amount_atomic: (A / 4n).toString() }]);
    expect(await linesOf(dataSource, released)).toEqual([]);
    expect(await linesOf(dataSource, pending)).toEqual([{ status: 'held', amount_atomic: A.toString() }]);
    expect(await store.spend(subject, clock)).toEqual({ hourly: A / 4n, daily: A / 4n, monthly: A / 4n });
    expect(await reservations.followEnded()).toBe(0);
  });

  it('counts a reservation in the window of its reserved_at: the previous hour, day or month no longer counts', async () => {
    const payer = wallet();
    const subject = { kind: 'wallet', wallet: payer } as const;
    await store.setLimits(subject, { hourly: 2n * A, daily: 3n * A, monthly: 4n * A }, ADMIN);
    expect(await pay(payer)).toBeNull();
    expect(await pay(payer)).toBeNull();
    clock = new Date('2026-11-25T10:59:59.999Z');
    expect((await pay(payer))?.message).toMatch(/the hourly budget/);
    clock = new Date('2026-11-25T11:00:00.000Z');
    expect(await pay(payer)).toBeNull();
    expect((await pay(payer))?.message).toMatch(/the daily budget/);
    clock = new Date('2026-11-26T00:00:00.000Z');
    expect(await pay(payer)).toBeNull();
    clock = new Date('2026-11-30T23:59:59.999Z');
    expect((await pay(payer))?.message).toMatch(/the monthly budget/);
    clock = new Date('2026-12-01T00:00:00.000Z');
    expect(await pay(payer)).toBeNull();

    await dataSource.query(`UPDATE budget_reservations SET status = 'settled' WHERE budget_id = (SELECT id FROM budgets WHERE wallet_address = $1)`, [payer]);
    expect(await store.spend(subject, new Date('2026-11-25T11:30:00.000Z'))).toEqual({ hourly: A, daily: 3n * A, monthly: 3n * A });
    expect(await store.spend(subject, new Date('2026-11-30T23:59:59.999Z'))).toEqual({ hourly: 0n, daily: 0n, monthly: 4n * A });
    expect(await store.spend(subject, new Date('2026-12-01T00:00:00.000Z'))).toEqual({ hourly: A, daily: A, monthly: A });
  });

  it('stops counting a line whose receipt never came after 2 minutes, and one whose receipt failed', async () => {
    const payer = wallet();
    await store.setLimits({ kind: 'wallet', wallet: payer }, { ...UNCAPPED, daily: A }, ADMIN);
    expect(await reservations.reserve(randomUUID(), payer, A)).toBeNull();
    clock = new Date(clock.getTime() + 2 * 60_000 - 1);
    expect(await pay(payer)).not.toBeNull();
    clock = new Date(clock.getTime() + 1);
    expect(await pay(payer)).toBeNull();
    clock = new Date(clock.getTime() + 60 * 60_000 - 1);
    expect(await pay(payer)).not.toBeNull();

    const lost = wallet();
    await store.setLimits({ kind: 'wallet', wallet: lost }, { ...UNCAPPED, daily: A }, ADMIN);
    const failed = randomUUID();
    expect(await reservations.reserve(failed, lost, A)).toBeNull();
    await writeReceipt(dataSource, failed, lost, 'failed');
    expect(await pay(lost)).toBeNull();
  });
}

describeWithPostgres('PostgresBudgets on PostgreSQL (local server)', () => {
  let drop: () => Promise<void>;
  let url: Secret;
  const databases: Database[] = [];

  beforeAll(async () => {
    const testDb = await createTestDatabase();
    drop = testDb.drop;
    url = new Secret(testDb.url);
  });
  afterAll(async () => {
    await Promise.all(databases.map((database) => database.close()));
    await drop();
  });

  const openInstance = async (): Promise<DataSource> => {
    const database = await Database.open({ kind: 'postgres', url });
    databases.push(database);
    return database.dataSource;
  };

  budgetsSuite(async () => ({ dataSource: await openInstance(), close: () => Promise.resolve() }));

  describe('under concurrency, two instances on one database', () => {
    const N = 7;
    let instances: PostgresBudgetReservations[];
    let dataSource: DataSource;

    beforeAll(async () => {
      const [first, second] = await Promise.all([openInstance(), openInstance()]);
      dataSource = first;
      instances = [new PostgresBudgetReservations(first), new PostgresBudgetReservations(second)];
    });

    /** 50 reserve() calls at once, spread over the instances and the payers; the held total is sampled as they run. */
    async function race(payers: string[], budgetId: string): Promise<{ admitted: number; peak: bigint; total: bigint }> {
      let running = true;
      let peak = 0n;
      const heldTotal = async () =>
        BigInt(((await dataSource.query('SELECT coalesce(sum(amount_atomic), 0)::text AS total FROM budget_reservations WHERE budget_id = $1', [budgetId])) as { total: string }[])[0].total);
      const sampler = (async () => {
        while (running) {
          const total = await heldTotal();
          if (total > peak) peak = total;
        }
      })();
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => instances[i % 2].reserve(randomUUID(), payers[i % payers.length], A)));
      running = false;
      await sampler;
      for (const result of results) if (result) expect(result.code).toBe('budget.exceeded');
      return { admitted: results.filter((result) => result === null).length, peak, total: await heldTotal() };
    }

    const budgetIdOf = async (column: 'wallet_address' | 'team_id', value: string): Promise<string> =>
      ((await dataSource.query(`SELECT id FROM budgets WHERE ${column} = $1`, [value])) as { id: string }[])[0].id;

    it('admits exactly N of 50 parallel requests from one wallet against a daily limit of N times their price', async () => {
      const payer = wallet();
      await new PostgresBudgetStore(dataSource).setLimits({ kind: 'wallet', wallet: payer }, { ...UNCAPPED, daily: BigInt(N) * A }, ADMIN);
      const { admitted, peak, total } = await race([payer], await budgetIdOf('wallet_address', payer));
      expect(admitted).toBe(N);
      expect(total).toBe(BigInt(N) * A);
      expect(peak).toBeLessThanOrEqual(BigInt(N) * A);
    });

    it('admits exactly N of 50 parallel requests from three wallets sharing one team budget', async () => {
      const payers = [wallet(), wallet(), wallet()];
      const team = await createTeam(dataSource, 'Shared', payers);
      await new PostgresBudgetStore(dataSource).setLimits({ kind: 'team', orgId: team.orgId, teamId: team.id }, { ...UNCAPPED, daily: BigInt(N) * A }, ADMIN);
      const { admitted, peak, total } = await race(payers, await budgetIdOf('team_id', team.id));
      expect(admitted).toBe(N);
      expect(total).toBe(BigInt(N) * A);
      expect(peak).toBeLessThanOrEqual(BigInt(N) * A);
    });
  });
});

describe('PostgresBudgets on embedded PGlite', () => {
  budgetsSuite(async () => {
    const database = await Database.open({ kind: 'pglite', dataDir: await migratedDataDir() });
    return { dataSource: database.dataSource, close: () => database.close() };
  });
});
