import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { GatewayError } from '../../errors/gateway-error';
import { formatUsdc } from '../../modules/billing/domain/atomic-usdc';
import { BUDGET_WINDOWS, windowStart, type BudgetLimits, type BudgetSpend, type BudgetSubject, type BudgetWindow } from '../../modules/orgs/domain/budget';
import type { Actor } from '../../modules/orgs/domain/org';
import { BudgetStore } from '../../modules/orgs/ports/budget-store';
import { ActorRevoked } from '../../modules/orgs/ports/org-store';
import type { ReceiptStatus } from '../../modules/payments/domain/receipt';
import { BudgetReservations } from '../../modules/payments/ports/budget-reservations';
import { writeAudit, writeOperatorAudit } from './postgres-org-store';

/**
 * A reservation is written before its receipt (src/modules/payments/application/exact-payments.ts);
 * one whose receipt never appears (the instance died in between) stops counting after this long.
 */
const ORPHAN_LINE_MS = 2 * 60_000;
/** Team ids reach the store from URLs; a uuid column refuses anything else with an error, so such an id has no budget. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** bigint columns and sums arrive from the driver as decimal strings, or null. */
interface LimitsRow {
  hourly_atomic: string | null;
  daily_atomic: string | null;
  monthly_atomic: string | null;
}

interface LockedBudget extends LimitsRow {
  id: string;
  team_name: string | null;
}

type UseRow = { id: string } & Record<BudgetWindow, string>;

/**
 * The paid path's reservations (the payments module's BudgetReservations). Every budget that applies
 * to the payer is locked, summed and written in one transaction (after a look without locks that
 * refuses what committed spend already refuses), so instances sharing the database
 * never admit together what the limit admits once. Windows are decided by `now`, which a reservation
 * keeps as its reserved_at.
 */
export class PostgresBudgetReservations extends BudgetReservations {
  constructor(
    private readonly dataSource: DataSource,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
  }

  async reserve(receiptId: string, payerWallet: string, amountAtomic: bigint): Promise<GatewayError | null> {
    const now = this.now();
    // A first look without a lock or a transaction: most payers have no budget, and a payment that
    // committed spend already refuses needs no place in the queue on the budget's row lock (a burst
    // of refusals held the pool's connections in that queue). It can only let through what the
    // locked look then judges; what it refuses, the locked look would refuse too, but for a
    // reservation released meanwhile, as if the payment had come a moment earlier.
    const first = await judge(this.dataSource.manager, payerWallet, amountAtomic, now, 'unlocked');
    if (first.budgets.length === 0 || first.refusal) return first.refusal;
    return this.dataSource.transaction(async (manager) => {
      const { budgets, refusal } = await judge(manager, payerWallet, amountAtomic, now, 'locked');
      if (budgets.length === 0 || refusal) return refusal;
      await manager.query(
        `INSERT INTO budget_reservations (receipt_id, budget_id, amount_atomic, reserved_at, status)
         SELECT $1, budget_id, $2, $3, 'held' FROM unnest($4::uuid[]) AS budget_id`,
        [receiptId, amountAtomic.toString(), now, budgets.map((budget) => budget.id)],
      );
      return null;
    });
  }

  async follow(receiptId: string, status: Exclude<ReceiptStatus, 'pending'>, chargedAtomic?: bigint): Promise<void> {
    if (status === 'settled' && chargedAtomic !== undefined) {
      // An escrow claim: the spend is what was claimed, not the deposit the line reserved.
      await this.dataSource.query(`UPDATE budget_reservations SET status = 'settled', amount_atomic = LEAST(amount_atomic, $2::bigint) WHERE receipt_id = $1`, [receiptId, chargedAtomic.toString()]);
    } else if (status === 'settled') await this.dataSource.query(`UPDATE budget_reservations SET status = 'settled' WHERE receipt_id = $1`, [receiptId]);
    else await this.dataSource.query('DELETE FROM budget_reservations WHERE receipt_id = $1', [receiptId]);
  }
  async followEnded(): Promise<number> {
    // What `follow` would have done: spend of what was charged (never more than reserved), or released.
    const [settled] = (await this.dataSource.query(
      `UPDATE budget_reservations line SET status = 'settled', amount_atomic = LEAST(line.amount_atomic, receipt.amount_charged_atomic)
       FROM receipts receipt WHERE receipt.id = line.receipt_id AND line.status = 'held' AND receipt.status = 'settled'
       RETURNING line.receipt_id`,
    )) as [unknown[], number];
    const [released] = (await this.dataSource.query(
      `DELETE FROM budget_reservations line USING receipts receipt
       WHERE receipt.id = line.receipt_id AND line.status = 'held' AND receipt.status IN ('failed', 'not_charged')
       RETURNING line.receipt_id`,
    )) as [unknown[], number];
    return settled.length + released.length;
  }

  async isBudgeted(payerWallet: string): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `SELECT 1 FROM budgets
       WHERE wallet_address = $1 OR team_id IN (SELECT team_id FROM team_wallets WHERE wallet_address = $1 AND consented)
       LIMIT 1`,
      [payerWallet],
    )) as unknown[];
    return rows.length > 0;
  }
}

/** Budget limits and settled spend (the orgs module's BudgetStore), over the same tables as the reservations. */
export class PostgresBudgetStore extends BudgetStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
  }

  async setLimits(subject: BudgetSubject, limits: BudgetLimits, actor: Actor): Promise<void> {
    const values = [limits.hourly?.toString() ?? null, limits.daily?.toString() ?? null, limits.monthly?.toString() ?? null, this.now()];
    await this.dataSource.transaction(async (manager) => {
      // As for the org store's changes (src/modules/orgs/ports/org-store.ts): a key's change lands only while the key is unrevoked.
      if (actor.kind === 'key') {
        const live = (await manager.query('SELECT 1 FROM org_api_keys WHERE id = $1 AND revoked_at IS NULL FOR SHARE', [actor.keyId])) as unknown[];
        if (live.length === 0) throw new ActorRevoked(`API key ${actor.keyId} was revoked`);
      }
      if (subject.kind === 'wallet') {
        // Locked, so of two concurrent changes the second audits the first's limits as its `before`.
        const [before] = (await manager.query('SELECT hourly_atomic, daily_atomic, monthly_atomic FROM budgets WHERE wallet_address = $1 FOR UPDATE', [subject.wallet])) as LimitsRow[];
        await manager.query(upsert('wallet_address'), [randomUUID(), subject.wallet, ...values]);
        await writeOperatorAudit(manager, 'budget.set', before ? limitsView({ wallet: subject.wallet }, limitsOf(before)) : null, limitsView({ wallet: subject.wallet }, limits));
        return;
      }
      // The audit entry is filed under the subject's org: a team of another org would put it in the wrong org's log.
      const teams = (await manager.query('SELECT 1 FROM teams WHERE id = $1 AND org_id = $2', [subject.teamId, subject.orgId])) as unknown[];
      if (teams.length === 0) throw new Error(`team ${subject.teamId} is not a team of org ${subject.orgId}`);
      // Locked, so of two concurrent changes the second audits the first's limits as its `before`.
      const [before] = (await manager.query('SELECT hourly_atomic, daily_atomic, monthly_atomic FROM budgets WHERE team_id = $1 FOR UPDATE', [subject.teamId])) as LimitsRow[];
      await manager.query(upsert('team_id'), [randomUUID(), subject.teamId, ...values]);
      await writeAudit(manager, subject.orgId, actor, 'budget.set', before ? limitsView({ team_id: subject.teamId }, limitsOf(before)) : null, limitsView({ team_id: subject.teamId }, limits));
    });
  }

  async limits(subject: BudgetSubject): Promise<BudgetLimits | null> {
    const id = await this.budgetId(subject);
    if (id === null) return null;
    const [row] = (await this.dataSource.query('SELECT hourly_atomic, daily_atomic, monthly_atomic FROM budgets WHERE id = $1', [id])) as LimitsRow[];
    return limitsOf(row);
  }

  /** As of `now`: a line reserved after it (when a past instant is asked about) is not spent yet. */
  async spend(subject: BudgetSubject, now: Date): Promise<BudgetSpend> {
    const id = await this.budgetId(subject);
    const spend: BudgetSpend = { hourly: 0n, daily: 0n, monthly: 0n };
    if (id === null) return spend;
    const [row] = (await this.dataSource.query(
      `SELECT ${windowSums('l')}
       FROM budget_reservations l
       WHERE l.budget_id = $1 AND l.status = 'settled' AND l.reserved_at >= $4 AND l.reserved_at <= $5`,
      [id, windowStart('hourly', now), windowStart('daily', now), windowStart('monthly', now), now],
    )) as Record<BudgetWindow, string>[];
    for (const window of BUDGET_WINDOWS) spend[window] = BigInt(row[window]);
    return spend;
  }

  private async budgetId(subject: BudgetSubject): Promise<string | null> {
    if (subject.kind === 'team' && (!UUID.test(subject.teamId) || !UUID.test(subject.orgId))) return null;
    const rows = (await (subject.kind === 'wallet'
      ? this.dataSource.query('SELECT id FROM budgets WHERE wallet_address = $1', [subject.wallet])
      : this.dataSource.query('SELECT b.id FROM budgets b JOIN teams t ON t.id = b.team_id WHERE b.team_id = $1 AND t.org_id = $2', [subject.teamId, subject.orgId]))) as { id: string }[];
    return rows[0]?.id ?? null;
  }
}

/**
 * What each budget has used in the windows holding `now`: held and settled lines alike. A line
 * counts while its receipt is pending or settled (a failed one whose follow() was lost charged
 * nothing), or, with no receipt yet, while it is younger than ORPHAN_LINE_MS.
 */
/** The budgets that apply to the payer, and the first window `amountAtomic` would overdraw (null: none). */
async function judge(manager: EntityManager, payerWallet: string, amountAtomic: bigint, now: Date, lock: 'locked' | 'unlocked'): Promise<{ budgets: LockedBudget[]; refusal: GatewayError | null }> {
  // Locked in id order, so two payers sharing budgets (a team's) take them in the same order and cannot deadlock.
  const budgets = (await manager.query(
    `SELECT b.id, b.hourly_atomic, b.daily_atomic, b.monthly_atomic, t.name AS team_name
     FROM budgets b LEFT JOIN teams t ON t.id = b.team_id
     WHERE b.wallet_address = $1 OR b.team_id IN (SELECT team_id FROM team_wallets WHERE wallet_address = $1 AND consented)
     ORDER BY b.id${lock === 'locked' ? ' FOR UPDATE OF b' : ''}`,
    [payerWallet],
  )) as LockedBudget[];
  if (budgets.length === 0) return { budgets, refusal: null };
  const used = await windowUse(
    manager,
    budgets.map((budget) => budget.id),
    now,
  );
  for (const budget of budgets) {
    const limits = limitsOf(budget);
    for (const window of BUDGET_WINDOWS) {
      const limit = limits[window];
      const spent = used.get(budget.id)?.[window] ?? 0n;
      if (limit !== null && spent + amountAtomic > limit) return { budgets, refusal: exceeded(payerWallet, window, budget.team_name, limit, spent, amountAtomic) };
    }
  }
  return { budgets, refusal: null };
}

async function windowUse(manager: EntityManager, budgetIds: string[], now: Date): Promise<Map<string, BudgetSpend>> {
  const rows = (await manager.query(
    `SELECT l.budget_id AS id, ${windowSums('l')}
     FROM budget_reservations l LEFT JOIN receipts r ON r.id = l.receipt_id
     WHERE l.budget_id = ANY($1::uuid[]) AND l.reserved_at >= $4
       AND (r.status IN ('pending', 'settled') OR (r.id IS NULL AND l.reserved_at > $5))
     GROUP BY l.budget_id`,
    [budgetIds, windowStart('hourly', now), windowStart('daily', now), windowStart('monthly', now), new Date(now.getTime() - ORPHAN_LINE_MS)],
  )) as UseRow[];
  return new Map(rows.map((row) => [row.id, { hourly: BigInt(row.hourly), daily: BigInt(row.daily), monthly: BigInt(row.monthly) }]));
}

/** Sums of `line`.amount_atomic from the hour's ($2), the day's ($3) and the month's ($4) start; the caller bounds the rows by $4. */
function windowSums(line: string): string {
  return `COALESCE(SUM(${line}.amount_atomic) FILTER (WHERE ${line}.reserved_at >= $2), 0)::text AS hourly,
          COALESCE(SUM(${line}.amount_atomic) FILTER (WHERE ${line}.reserved_at >= $3), 0)::text AS daily,
          COALESCE(SUM(${line}.amount_atomic), 0)::text AS monthly`;
}

/** Insert or replace the budget of the subject in `column` ($2); the id ($1) is kept by an existing budget. */
function upsert(column: 'team_id' | 'wallet_address'): string {
  return `INSERT INTO budgets (id, ${column}, hourly_atomic, daily_atomic, monthly_atomic, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
          ON CONFLICT (${column}) DO UPDATE SET hourly_atomic = EXCLUDED.hourly_atomic, daily_atomic = EXCLUDED.daily_atomic,
            monthly_atomic = EXCLUDED.monthly_atomic, updated_at = EXCLUDED.updated_at`;
}

function limitsOf(row: LimitsRow): BudgetLimits {
  const limit = (value: string | null) => (value === null ? null : BigInt(value));
  return { hourly: limit(row.hourly_atomic), daily: limit(row.daily_atomic), monthly: limit(row.monthly_atomic) };
}

/** The audit's `before` and `after` of a budget (a team's, or a wallet's in the operator's audit): limits as 6-decimal USDC strings, null where uncapped. */
function limitsView(subject: { team_id: string } | { wallet: string }, limits: BudgetLimits) {
  const usdc = (value: bigint | null) => (value === null ? null : formatUsdc(value));
  return { ...subject, hourly: usdc(limits.hourly), daily: usdc(limits.daily), monthly: usdc(limits.monthly) };
}

function exceeded(payerWallet: string, window: BudgetWindow, teamName: string | null, limit: bigint, spent: bigint, amountAtomic: bigint): GatewayError {
  // A lowered limit can sit below what the window already used: nothing is left, never a negative amount.
  const left = spent >= limit ? 0n : limit - spent;
  // A team is named only as such: the payer may be in a team of an org it has never dealt with.
  const owner = teamName === null ? 'the wallet' : 'a team it is in';
  return new GatewayError(
    'budget.exceeded',
    `budget exceeded for wallet ${payerWallet}: the ${window} budget of ${owner} has ${formatUsdc(left)} left of ${formatUsdc(limit)} and this request pays ${formatUsdc(amountAtomic)}`,
  );
}
