import { randomUUID } from 'node:crypto';
import { Injectable, Optional } from '@nestjs/common';
import { AppLogger } from '../../../logging/app-logger';
import type { PaymentPayload } from '../../../../libs/x402';
import { GatewayError } from '../../../errors/gateway-error';
import { PaymentRejection, type VerifiedTransfer } from '../domain/exact-payment';
import { channelErrors } from '../domain/channel-errors';
import { paymentErrors } from '../domain/payment-errors';
import { pendingReceipt, type Receipt } from '../domain/receipt';
import { PaymentChain } from '../ports/payment-chain';
import { NONCE_REPLAY_TTL_MS, REPLAY_TTL_MS, ReplayStore, ReplayStoreFull } from '../ports/replay-store';
import { PaymentAlreadyHeld, ReceiptStore } from '../ports/receipt-store';
import { BudgetReservations } from '../ports/budget-reservations';
import { GatewayConfig } from '../../../config/gateway-config';
import { SpendRecorder } from '../../billing/application/spend-recorder';
import { AcceptedPayment, type PaymentCollaborators } from './accepted-payment';
import { ReceiptOutbox } from './receipt-outbox';
import { PaymentChallenges } from './payment-challenges';
import { PaymentMetrics } from './payment-metrics';
import { PaidRateLimit } from './paid-rate-limit';
import { BlockhashTracker } from './blockhash-tracker';
import { FeeSponsorship } from './fee-sponsorship';
import type { PaymentHold } from './payment-hold';
import type { PaymentContext } from './payment-context';
import { PaymentScheme } from './payment-scheme';
import { SourceExposure, type BalanceRead } from './source-exposure';

/**
 * The `exact` scheme up to the point of serving, once PaymentAcceptance has checked the header's
 * size, decoding and shared terms: the rest of the checks, in the one order docs/decisions.md,
 * "Order of checks" gives, up to the pending receipt (the durable claim). The payment-attempt
 * count came before any of it (`attempt` proves it). When to broadcast is the surface's (`PaymentContext.exactSettlesAt`, `AcceptedPayment.broadcast`).
 * Three bounds keep what is accepted payable (docs/decisions.md, "Money moves exactly once (2 of
 * 2)"): the blockhash's life, the source's in-flight exposure and the sponsored fees.
 */
@Injectable()
export class ExactPayments extends PaymentScheme {
  readonly name = 'exact';
  private readonly collaborators: PaymentCollaborators;
  private readonly minBlockhashLifeMs: number;

  constructor(
    private readonly challenges: PaymentChallenges,
    private readonly chain: PaymentChain,
    private readonly replay: ReplayStore,
    private readonly budgets: BudgetReservations,
    private readonly rateLimit: PaidRateLimit,
    metrics: PaymentMetrics,
    private readonly blockhashes: BlockhashTracker,
    private readonly exposure: SourceExposure,
    private readonly sponsorship: FeeSponsorship,
    outbox: ReceiptOutbox,
    private readonly logger: AppLogger,
    config: GatewayConfig,
    spend: SpendRecorder,
    @Optional() private readonly receipts?: ReceiptStore,
  ) {
    super();
    logger.setContext(ExactPayments.name);
    this.collaborators = { chain, replay, receipts, budgets, outbox, metrics, logger, network: challenges.terms.network, confirmMs: config.settlement.confirmMs, blockhashes, spend };
    this.minBlockhashLifeMs = config.settlement.minBlockhashLifeMs;
  }

  /** An `exact` payment: its offer's terms, then the checks in the order above. */
  async accept(payload: PaymentPayload, context: PaymentContext): Promise<AcceptedPayment> {
    const transaction = this.exactTransaction(payload, context);
    const transfer = this.verify(transaction, this.challenges.terms.payTo, context.quote, context.durableNonces !== 'refuse', context.requestId);
    return this.admit(transfer, transaction, context, this.challenges.terms.payTo);
  }

  /**
   * A channel's funding transfer, checked without the chain (docs/decisions.md, "Channels"):
   * an `exact` transfer paying `custody` at least `minimum` from a source `agent` authorises. The
   * wrong destination, too small an amount, or another authority are named (400).
   */
  fundingTransfer(transaction: string, funding: { custody: string; agent: string }, minimum: bigint): VerifiedTransfer {
    let transfer: VerifiedTransfer;
    try {
      transfer = this.verify(transaction, funding.custody, minimum, false, null);
    } catch (err) {
      const reason = err instanceof GatewayError && err.cause instanceof PaymentRejection ? err.cause.reason : undefined;
      if (reason === 'destination') throw channelErrors.fundingInvalid(`its destination is not the custody wallet's USDC token account (custody ${funding.custody})`);
      if (reason === 'amount') throw channelErrors.fundingInvalid(`its amount is below the minimum deposit of ${minimum} atomic USDC`);
      throw err;
    }
    if (transfer.payer !== funding.agent) throw channelErrors.fundingInvalid('its source is not authorised by agent_wallet');
    return transfer;
  }

  /** The funding `fundingTransfer` checked, through the rest of a payment's checks and lifecycle; a deposit is not spend, so no budget is reserved for it. */
  acceptFunding(transfer: VerifiedTransfer, transaction: string, context: PaymentContext, custody: string): Promise<AcceptedPayment> {
    return this.admit(transfer, transaction, { ...context, budgetedPayers: 'exempt' }, custody);
  }

  /** The checks after the transaction's own, in order, up to the pending receipt. */
  private async admit(transfer: VerifiedTransfer, transaction: string, context: PaymentContext, payTo: string): Promise<AcceptedPayment> {
    const unsponsored = this.sponsorship.refusal(transfer, context.quote);
    if (unsponsored) throw unsponsored;
    if (await this.replay.seen(transfer.replayKey)) throw paymentErrors.replayed(transfer.replayKey);
    const rateLimit = await this.rateLimit.admitWallet(transfer.payer);
    const balance = await this.checkOnChain(transfer, transaction, context.requestId);
    if (context.budgetedPayers === 'refuse' && (await this.budgets.isBudgeted(transfer.payer))) throw paymentErrors.budgetedPayer(transfer.payer);

    const ttl = transfer.nonceAccount === null ? REPLAY_TTL_MS : NONCE_REPLAY_TTL_MS;
    if (!(await this.claim(transfer.replayKey, ttl))) throw paymentErrors.replayed(transfer.replayKey);
    const receiptId = randomUUID();
    const holds: PaymentHold[] = [];
    const releaseHolds = () => Promise.all(holds.map((hold) => hold.release()));
    try {
      holds.push(await this.exposure.hold(transfer, receiptId, balance, ttl));
      const sponsored = await this.sponsorship.hold(transfer, context.clientAddress);
      if (sponsored) holds.push(sponsored);
      const refusal = context.budgetedPayers === 'exempt' ? null : await this.budgets.reserve(receiptId, transfer.payer, transfer.amount);
      if (refusal) throw refusal;
    } catch (err) {
      await Promise.all([releaseHolds(), this.replay.release(transfer.replayKey)]);
      throw err;
    }
    let receipt: Receipt | null = null;
    try {
      receipt = await this.writeReceipt(receiptId, transfer, transaction, context, payTo);
    } catch (err) {
      // A reservation that cannot be released now lapses on its own (no receipt): it must not keep the claim.
      const released = this.budgets
        .follow(receiptId, 'not_charged')
        .catch((followErr: unknown) => this.logger.error({ err: followErr, receipt: receiptId }, 'budget reservation not released; it lapses without a receipt'));
      await Promise.all([released, releaseHolds()]);
      // Another instance holds this payment's durable claim, whatever the replay store said: its claim stays.
      if (err instanceof PaymentAlreadyHeld) throw paymentErrors.replayed(transfer.replayKey);
      await this.replay.release(transfer.replayKey);
      this.logger.error({ err, request_id: context.requestId }, 'could not write the pending receipt; payment refused unused');
      throw paymentErrors.receiptsUnavailable();
    }
    return new AcceptedPayment(transfer, transaction, receiptId, receipt, rateLimit, holds, this.collaborators, context.exactSettlesAt);
  }

  private async claim(replayKey: string, ttlMs: number): Promise<boolean> {
    try {
      return await this.replay.claim(replayKey, ttlMs);
    } catch (err) {
      if (err instanceof ReplayStoreFull) throw paymentErrors.replayStoreFull();
      throw err;
    }
  }

  /** The `exact` offer's own terms: recipient, scheme, payload, amount. Returns the payload's transaction. */
  private exactTransaction(payload: PaymentPayload, context: PaymentContext): string {
    const { accepted } = payload;
    // Never downgraded to exact (spec 4.7): an escrow payment where escrow is not offered is refused whole.
    if (accepted.scheme === 'escrow') throw paymentErrors.escrowNotAccepted();
    if (accepted.payTo !== this.challenges.terms.payTo) throw paymentErrors.recipient(this.challenges.terms.payTo);
    if (accepted.scheme !== 'exact') throw paymentErrors.scheme(accepted.scheme);
    if (payload.payload.kind !== 'exact') throw paymentErrors.schemeMismatch(accepted.scheme, payload.payload.kind);
    const paid = BigInt(accepted.amount);
    if (paid < context.quote) throw paymentErrors.insufficient(paid, context.quote);
    return payload.payload.transaction;
  }

  /** `requestId`: the request paying, named on a refusal's log line (none for a channel's funding, checked before one). */
  private verify(transaction: string, payTo: string, quote: bigint, durableNonces: boolean, requestId: string | null): VerifiedTransfer {
    const { terms } = this.challenges;
    try {
      return this.chain.verifyTransfer(transaction, {
        payTo,
        mint: terms.asset,
        minimumAmount: quote,
        allowDurableNonce: durableNonces && this.replay.durable(),
      });
    } catch (err) {
      if (!(err instanceof PaymentRejection)) throw err;
      this.logger.info({ request_id: requestId ?? undefined, reason: err.reason }, 'payment transaction refused');
      throw paymentErrors.unverifiable(err);
    }
  }

  /**
   * Blockhash life and a simulation that also reads the source's balance, side by side (one round
   * trip); a short life is the answer even when the simulation failed too. An RPC that cannot
   * answer means the payment cannot be confirmed.
   */
  private async checkOnChain(transfer: VerifiedTransfer, transaction: string, requestId: string): Promise<BalanceRead> {
    try {
      const [life, balance] = await Promise.allSettled([this.checkLife(transfer), this.readBalance(transfer, transaction, requestId)]);
      if (life.status === 'rejected') throw life.reason;
      if (balance.status === 'rejected') throw balance.reason;
      return balance.value;
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      this.logger.warn({ err, request_id: requestId }, 'solana rpc unavailable while checking a payment');
      throw paymentErrors.chainUnreachable();
    }
  }

  /** The simulation, after the exposure version, so a debit landing meanwhile is not missed. */
  private async readBalance(transfer: VerifiedTransfer, transaction: string, requestId: string): Promise<BalanceRead> {
    const version = await this.exposure.version(transfer);
    const simulation = await this.chain.simulate(transaction, { tokenAccount: transfer.source, authority: transfer.payer });
    if (!simulation.ok) {
      this.logger.info({ request_id: requestId, reason: simulation.reason, detail: simulation.detail }, 'payment simulation failed');
      throw { 'insufficient-funds': paymentErrors.unfunded, 'blockhash-expired': paymentErrors.expired, failed: paymentErrors.unverifiable }[simulation.reason]();
    }
    // Unreadable, the balance is taken to be this payment alone: nothing else may be in flight beside it.
    return { version, balance: (simulation.spendableAfter ?? 0n) + transfer.amount };
  }

  /**
   * A blockhash the tracker knows is judged against a fresh block height; one it does not is asked
   * about, beside a poll that may learn its life. A durable nonce has no expiry to judge: it lives
   * while its account holds it.
   */
  private async checkLife(transfer: VerifiedTransfer): Promise<void> {
    if (transfer.nonceAccount !== null) {
      if (!(await this.chain.blockhashValid(transfer))) throw paymentErrors.expired();
      return;
    }
    const life = (await this.blockhashes.lifeNowMs(transfer.recentBlockhash)) ?? (await this.blockhashes.unseenLifeMs(transfer.recentBlockhash, () => this.chain.blockhashValid(transfer)));
    if (life === null || life <= 0) throw paymentErrors.expired();
    if (life < this.minBlockhashLifeMs) throw paymentErrors.shortLived(Math.floor(life / 1000), this.minBlockhashLifeMs / 1000);
  }

  private async writeReceipt(id: string, transfer: VerifiedTransfer, transaction: string, context: PaymentContext, payTo: string): Promise<Receipt | null> {
    if (!this.receipts) return null;
    const { network, asset } = this.challenges.terms;
    const receipt = pendingReceipt({
      id,
      scheme: 'exact',
      network,
      asset,
      payerWallet: transfer.payer,
      payTo,
      transactionSignature: transfer.signature,
      amountQuotedAtomic: context.quote,
      amountPaidAtomic: transfer.amount,
      endpoint: context.path,
      model: context.model,
      requestId: context.requestId,
      replayKey: transfer.replayKey,
      signedTransaction: transaction,
      escrow: null,
    });
    await this.receipts.create(receipt);
    return receipt;
  }
}
