import type { DataSource, EntityManager } from 'typeorm';
import type { Channel, ChannelStatus } from '../../modules/payments/domain/channel';
import { ChannelLedger, type ChannelClose, type ChannelDraw, type CloseJobCounts, type NewChannel } from '../../modules/payments/ports/channel-ledger';
import { ReceiptRow } from './entities/receipt.row';
import { SpendLogRow } from './entities/spend-log.row';
import { completeReceipt } from './postgres-receipt-store';
import { insertSpend } from './postgres-spend-log';
import { ERROR_CHARS, uniqueViolation, updated } from './sql';

/** A channels row as the driver returns it: bigint columns as decimal strings, timestamps as Dates. */
interface ChannelRow {
  id: string;
  agent_wallet: string;
  session_key: string;
  custody: string;
  deposited_atomic: string;
  last_cumulative_atomic: string;
  status: ChannelStatus;
  funding_signature: string;
  open_digest: string;
  funding_receipt_id: string;
  created_at: Date;
  last_draw_at: Date | null;
  close_signature: string | null;
}

type CloseStatus = 'pending' | 'in_progress' | 'completed';
type Sent = ChannelClose['sent'];

const COLUMNS =
  'id, agent_wallet, session_key, custody, deposited_atomic, last_cumulative_atomic, status, funding_signature, open_digest, funding_receipt_id, created_at, last_draw_at, close_signature';
/** The same, qualified: in the lease's UPDATE … FROM, the close job's columns are in scope too. */
const CHANNEL_COLUMNS = COLUMNS.split(', ')
  .map((column) => `ch.${column}`)
  .join(', ');
/** The WHERE of every move a holder makes on a close job: it still holds the job's lease. */
const HELD = "channel_id = $1 AND status = 'in_progress' AND lease_holder = $2";
/** A second voucher for a cumulative already drawn: another draw won. */
const VOUCHER_KEY = 'channel_vouchers_pkey';

/** Thrown inside a draw's transaction to roll it back: the channel moved first. */
class DrawRace extends Error {}

/**
 * The channel ledger in `channels`, `channel_vouchers` and `channel_closes`
 * (migrations/1765000000000-channels.ts). A move is one conditional statement (or, for a draw, one
 * transaction that starts with one): the status it starts from, and for a draw the cumulative, is
 * in its WHERE, so a close and a draw, or two draws, never both move a channel. Close jobs are
 * leased as escrow claims are (src/adapters/postgres/postgres-escrow-claims.ts).
 */
export class PostgresChannelLedger extends ChannelLedger {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async createOpening(channel: NewChannel): Promise<{ created: boolean; channel: Channel }> {
    const inserted = (await this.dataSource.query(
      `INSERT INTO channels (id, agent_wallet, session_key, custody, deposited_atomic, status, funding_signature, open_digest, funding_receipt_id)
       VALUES ($1, $2, $3, $4, $5, 'opening', $6, $7, $8)
       ON CONFLICT (funding_signature) DO NOTHING
       RETURNING ${COLUMNS}`,
      [channel.id, channel.agentWallet, channel.sessionKey, channel.custody, channel.deposited.toString(), channel.fundingSignature, channel.openDigest, channel.fundingReceiptId],
    )) as ChannelRow[];
    if (inserted.length === 1) return { created: true, channel: toChannel(inserted[0]) };
    // A new statement, so a new snapshot: the conflicting row (committed, or the insert would have waited for it) is seen.
    const existing = await this.findByFunding(channel.fundingSignature);
    if (!existing) throw new Error(`channel of funding ${channel.fundingSignature} neither inserted nor found`);
    return { created: false, channel: existing };
  }

  async markOpen(id: string): Promise<void> {
    await this.dataSource.query("UPDATE channels SET status = 'open' WHERE id = $1 AND status = 'opening'", [id]);
  }

  async dropOpening(id: string): Promise<void> {
    await this.dataSource.query("DELETE FROM channels WHERE id = $1 AND status = 'opening'", [id]);
  }

  async find(id: string): Promise<Channel | null> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM channels WHERE id = $1`, [id])) as ChannelRow[];
    return rows.length === 0 ? null : toChannel(rows[0]);
  }

  async findByFunding(fundingSignature: string): Promise<Channel | null> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM channels WHERE funding_signature = $1`, [fundingSignature])) as ChannelRow[];
    return rows.length === 0 ? null : toChannel(rows[0]);
  }

  async openingBefore(createdBefore: Date, limit: number): Promise<Channel[]> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM channels WHERE status = 'opening' AND created_at < $1 ORDER BY created_at, id LIMIT $2`, [createdBefore, limit])) as ChannelRow[];
    return rows.map(toChannel);
  }

  async drawnSignature(channelId: string, cumulative: bigint): Promise<string | null> {
    const rows = (await this.dataSource.query('SELECT signature FROM channel_vouchers WHERE channel_id = $1 AND cumulative_atomic = $2', [channelId, cumulative.toString()])) as {
      signature: string;
    }[];
    return rows.length === 0 ? null : rows[0].signature;
  }

  async recordDraw(draw: ChannelDraw): Promise<'recorded' | 'race'> {
    try {
      await this.dataSource.transaction((manager) => writeDraw(manager, draw));
      return 'recorded';
    } catch (err) {
      if (err instanceof DrawRace || uniqueViolation(err) === VOUCHER_KEY) return 'race';
      throw err;
    }
  }

  async requestClose(id: string, now: Date): Promise<Channel | null> {
    // One statement: the channel moves and its job is written together, or neither (already closing, closed, or still opening).
    await this.dataSource.query(
      `WITH closing AS (UPDATE channels SET status = 'closing' WHERE id = $1 AND status = 'open' RETURNING id)
       INSERT INTO channel_closes (channel_id, status, due_at, created_at) SELECT id, 'pending', $2, $2 FROM closing`,
      [id, now],
    );
    return this.find(id);
  }

  async idleBefore(before: Date, limit: number): Promise<string[]> {
    const rows = (await this.dataSource.query(`SELECT id FROM channels WHERE status = 'open' AND COALESCE(last_draw_at, created_at) < $1 ORDER BY COALESCE(last_draw_at, created_at), id LIMIT $2`, [
      before,
      limit,
    ])) as { id: string }[];
    return rows.map((row) => row.id);
  }

  async custodiesInUse(): Promise<string[]> {
    const rows = (await this.dataSource.query("SELECT DISTINCT custody FROM channels WHERE status <> 'closed' ORDER BY custody")) as { custody: string }[];
    return rows.map((row) => row.custody);
  }

  async leaseClose(now: Date, holder: string, leaseUntil: Date): Promise<ChannelClose | null> {
    // One statement, as an escrow claim's lease: a job another instance is leasing right now is skipped, not waited for.
    const rows = await updated<ChannelRow & { attempts: number; sent: Sent }>(
      this.dataSource,
      `WITH due AS (
         SELECT channel_id FROM channel_closes
         WHERE (status = 'pending' AND due_at <= $1) OR (status = 'in_progress' AND lease_until <= $1)
         ORDER BY due_at, created_at, channel_id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       )
       UPDATE channel_closes j SET status = 'in_progress', lease_holder = $2, lease_until = $3
       FROM due, channels ch WHERE j.channel_id = due.channel_id AND ch.id = j.channel_id
       RETURNING ${CHANNEL_COLUMNS}, j.attempts, j.sent`,
      [now, holder, leaseUntil],
    );
    if (rows.length === 0) return null;
    const [row] = rows;
    return { channel: toChannel(row), attempts: row.attempts, sent: row.sent };
  }

  async recordCloseAttempt(channelId: string, holder: string, sent: Sent[number]): Promise<boolean> {
    const rows = await updated(
      this.dataSource,
      `UPDATE channel_closes SET sent = sent || jsonb_build_array(jsonb_build_object('signature', $3::text, 'signedTransaction', $4::text, 'leg', $5::text)) WHERE ${HELD} RETURNING channel_id`,
      [channelId, holder, sent.signature, sent.signedTransaction, sent.leg],
    );
    return rows.length === 1;
  }

  async completeClose(channelId: string, holder: string, signature: string): Promise<boolean> {
    // One statement: the job done and the channel closed together.
    const rows = await updated(
      this.dataSource,
      `WITH done AS (
         UPDATE channel_closes SET status = 'completed', lease_until = NULL, lease_holder = NULL, completed_at = now() WHERE ${HELD} RETURNING channel_id
       )
       UPDATE channels SET status = 'closed', close_signature = $3 FROM done WHERE channels.id = done.channel_id RETURNING channels.id`,
      [channelId, holder, signature],
    );
    return rows.length === 1;
  }

  async retryClose(channelId: string, holder: string, dueAt: Date, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE channel_closes SET status = 'pending', attempts = attempts + 1, due_at = $3, last_error = left($4, ${ERROR_CHARS}), lease_until = NULL, lease_holder = NULL
       WHERE ${HELD}`,
      [channelId, holder, dueAt, error],
    );
  }

  async closeJobCounts(): Promise<CloseJobCounts> {
    const rows = (await this.dataSource.query('SELECT status, count(*)::int AS n FROM channel_closes GROUP BY status')) as { status: CloseStatus; n: number }[];
    const count = (status: CloseStatus): number => rows.find((row) => row.status === status)?.n ?? 0;
    return { pending: count('pending'), inProgress: count('in_progress'), completed: count('completed') };
  }
}

/**
 * A draw's writes. The channel first: its row lock queues a concurrent draw or close behind this
 * one, which then finds the cumulative (or the status) moved and writes nothing.
 */
async function writeDraw(manager: EntityManager, draw: ChannelDraw): Promise<void> {
  const advanced = await updated(
    manager,
    `UPDATE channels SET last_cumulative_atomic = $2, last_draw_at = $3
     WHERE id = $1 AND status = 'open' AND last_cumulative_atomic = $4
     RETURNING id`,
    [draw.channelId, draw.cumulative.toString(), draw.at, (draw.cumulative - draw.amount).toString()],
  );
  if (advanced.length === 0) throw new DrawRace();
  await manager.query(
    `INSERT INTO channel_vouchers (channel_id, cumulative_atomic, amount_atomic, expiry_slot, nonce, request_digest, signature, receipt_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [draw.channelId, draw.cumulative.toString(), draw.amount.toString(), draw.expirySlot.toString(), draw.nonce.toString(), draw.requestDigest, draw.signature, draw.receiptId, draw.at],
  );
  await completeReceipt(manager.getRepository(ReceiptRow), draw.receiptId, { status: 'settled', amountChargedAtomic: draw.amount, settledAt: draw.at });
  const { spend } = draw;
  await insertSpend(manager.getRepository(SpendLogRow), {
    requestId: spend.requestId,
    payerWallet: spend.payer,
    model: spend.model,
    provider: spend.provider,
    tokensIn: spend.inputTokens,
    tokensOut: spend.outputTokens,
    amountChargedAtomic: spend.chargedAtomic,
    createdAt: draw.at,
  });
}

function toChannel(row: ChannelRow): Channel {
  return {
    id: row.id,
    agentWallet: row.agent_wallet,
    sessionKey: row.session_key,
    custody: row.custody,
    deposited: BigInt(row.deposited_atomic),
    lastCumulative: BigInt(row.last_cumulative_atomic),
    status: row.status,
    fundingSignature: row.funding_signature,
    openDigest: row.open_digest,
    fundingReceiptId: row.funding_receipt_id,
    createdAt: row.created_at,
    lastDrawAt: row.last_draw_at,
    closeSignature: row.close_signature,
  };
}
