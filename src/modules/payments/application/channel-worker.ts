import { randomUUID } from 'node:crypto';
import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { AppLogger } from '../../../logging/app-logger';
import { closeAmounts } from '../domain/channel';
import type { SettlementLeg } from '../ports/channel-chain';
import type { ChannelClose } from '../ports/channel-ledger';
import { FeePayers } from '../ports/fee-payers';
import { PaymentChain } from '../ports/payment-chain';
import { ChannelAvailability, type ChannelParts } from './channel-availability';
import { ChannelCloses } from './channel-closes';
import { PaymentChallenges } from './payment-challenges';
import { PaymentMetrics } from './payment-metrics';

/** Jobs and channels taken per pass. */
const BATCH = 10;
/** The longest wait between two attempts of one close. */
const MAX_RETRY_MS = 300_000;
const RETRY_BASE_MS = 1_000;

type Outcome = { kind: 'closed'; signature: string } | { kind: 'retry'; reason: string };

/**
 * The channels' background work (docs/decisions.md, "Channels"), every
 * GW_CHANNEL_WORK_INTERVAL_MS on every instance: the durable close jobs, leased one at a time (a
 * lease that lapses makes a job due again elsewhere); the idle close; and `opening` channels whose
 * funding's receipt the reconciler finished. A close pays exactly once: before a new settlement is
 * sent, every one sent before is looked up, and one that may still land (its blockhash alive) is
 * waited for.
 */
@Injectable()
export class ChannelWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly holder = randomUUID();
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;

  constructor(
    private readonly availability: ChannelAvailability,
    private readonly closes: ChannelCloses,
    private readonly challenges: PaymentChallenges,
    private readonly chain: PaymentChain,
    private readonly feePayers: FeePayers,
    private readonly metrics: PaymentMetrics,
    private readonly config: GatewayConfig,
    private readonly logger: AppLogger,
  ) {
    logger.setContext(ChannelWorker.name);
    // A lease outlives the work on it (its confirmation window and RPC calls) by GW_LEASE_TTL_SECS;
    // should it lapse anyway, the next holder looks up every settlement sent before sending one.
    this.leaseMs = config.settlement.leaseTtlMs + config.settlement.confirmMs;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.availability.check();
    if (!this.availability.enabled) return;
    const { ledger, chain } = this.availability.require();
    this.metrics.channels({
      closeJobs: () => ledger.closeJobCounts().then((c) => ({ pending: c.pending, in_progress: c.inProgress, completed: c.completed })),
      custodyBalance: () => chain.custodyBalance().catch(() => null),
    });
    this.timer = setInterval(() => this.tick(), this.config.channels.workIntervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pass;
  }

  private tick(): void {
    if (this.pass) return;
    this.pass = this.work()
      .catch((err: unknown) => this.logger.warn({ err }, 'channel work pass failed; retried next pass'))
      .finally(() => {
        this.pass = null;
      });
  }

  /** One pass: idle channels to close, openings to finish, due closes to send. */
  async work(): Promise<void> {
    const parts = this.availability.require();
    const now = Date.now();
    const idleSince = new Date(now - this.config.channels.idleCloseMs);
    for (const id of await parts.ledger.idleBefore(idleSince, BATCH)) {
      if (await this.closes.closeIdle(id, idleSince)) this.logger.info({ channel: id }, 'idle channel closing');
    }
    await this.finishOpenings(parts, now);
    for (let worked = 0; worked < BATCH && this.timer !== null; worked++) {
      const job = await parts.ledger.leaseClose(new Date(), this.holder, new Date(Date.now() + this.leaseMs));
      if (!job) break;
      await this.workClose(parts, job);
    }
  }

  /** `opening` channels older than a confirmation: open once their funding's receipt settled, gone once it never will be. */
  private async finishOpenings(parts: ChannelParts, now: number): Promise<void> {
    for (const channel of await parts.ledger.openingBefore(new Date(now - this.config.settlement.confirmMs), BATCH)) {
      const receipt = await parts.receipts.find(channel.fundingReceiptId);
      if (receipt?.status === 'settled') {
        await parts.ledger.markOpen(channel.id);
        this.metrics.channelOpened();
      } else if (receipt === null || receipt.status === 'not_charged' || receipt.status === 'failed') {
        await parts.ledger.dropOpening(channel.id);
      }
    }
  }

  private async workClose(parts: ChannelParts, job: ChannelClose): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await this.settle(parts, job);
    } catch (err) {
      outcome = { kind: 'retry', reason: err instanceof Error ? err.message : String(err) };
    }
    if (outcome.kind === 'closed') {
      await parts.ledger.completeClose(job.channel.id, this.holder, outcome.signature);
      this.logger.info({ channel: job.channel.id, signature: outcome.signature }, 'channel closed on chain');
      return;
    }
    const delay = Math.min(MAX_RETRY_MS, RETRY_BASE_MS * 2 ** Math.min(job.attempts, 16));
    await parts.ledger.retryClose(job.channel.id, this.holder, new Date(Date.now() + delay), outcome.reason);
    this.logger.warn({ channel: job.channel.id, reason: outcome.reason, attempts: job.attempts + 1 }, 'channel close not settled yet; retried');
  }

  /**
   * The legs still unsettled, after what the chain says of every settlement sent: none is sent
   * while one may still land. Both go in one transaction when the refund can land in an account
   * of the agent's own (`ChannelChain.refundable`); else the payout goes alone, so the agent can
   * never hold up the recipient, and the refund stays in custody, retried, until it can.
   */
  private async settle(parts: ChannelParts, job: ChannelClose): Promise<Outcome> {
    const statuses = job.sent.length > 0 ? await this.chain.statuses(job.sent.map((sent) => sent.signature)) : [];
    const landed = job.sent.filter((_, index) => statuses[index] === 'confirmed');
    for (const [index, sent] of job.sent.entries()) {
      if (statuses[index] === 'processing' || (statuses[index] === 'absent' && (await this.chain.blockhashValid(this.chain.life(sent.signedTransaction))))) {
        return { kind: 'retry', reason: `settlement ${sent.signature} may still land` };
      }
    }
    const { refund, payout } = closeAmounts(job.channel);
    const settled = (kind: SettlementLeg['kind']) => landed.some((sent) => sent.leg.split('+').includes(kind));
    const owed: SettlementLeg[] = [
      { channelId: job.channel.id, kind: 'payout' as const, owner: this.challenges.terms.payTo, amount: payout },
      { channelId: job.channel.id, kind: 'refund' as const, owner: job.channel.agentWallet, amount: refund },
    ].filter((leg) => leg.amount > 0n && !settled(leg.kind));
    const last = landed.at(-1);
    if (owed.length === 0) return last ? { kind: 'closed', signature: last.signature } : { kind: 'retry', reason: 'a channel with nothing to settle' };
    const refundable = await parts.chain.refundable(job.channel.agentWallet);
    const legs = owed.filter((leg) => leg.kind === 'payout' || refundable);
    if (legs.length === 0) return { kind: 'retry', reason: "the refund waits for the agent's own USDC token account (absent, given away or frozen); it stays in custody" };
    const sent = await this.send(parts, job, legs);
    if (sent.kind === 'retry' || legs.length === owed.length) return sent;
    return { kind: 'retry', reason: "payout settled; the refund waits for the agent's own USDC token account (absent, given away or frozen); it stays in custody" };
  }

  private async send(parts: ChannelParts, job: ChannelClose, legs: SettlementLeg[]): Promise<Outcome> {
    const feePayer = this.feePayers.advertise();
    const prepared = await parts.chain.settlementTransaction(legs, feePayer);
    if (!prepared) return { kind: 'retry', reason: 'the fee payer could not sign' };
    const leg = legs.map((owed) => owed.kind).join('+');
    // Recorded before the send: a settlement the chain may hold is always looked up before another is sent.
    if (!(await parts.ledger.recordCloseAttempt(job.channel.id, this.holder, { ...prepared, leg }))) return { kind: 'retry', reason: 'lease lost' };
    const sent = await this.chain.send(prepared);
    if (sent.kind === 'rejected') {
      if (feePayer) this.feePayers.markFailed(feePayer);
      return { kind: 'retry', reason: `${leg} refused: ${sent.detail}` };
    }
    const confirmed = await this.chain.confirm(prepared.signature, this.config.settlement.confirmMs);
    return confirmed === 'confirmed' ? { kind: 'closed', signature: prepared.signature } : { kind: 'retry', reason: `${leg} ${prepared.signature} ${confirmed}` };
  }
}
