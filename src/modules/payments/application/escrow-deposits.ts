import { SpendRecorder } from '../../billing/application/spend-recorder';
import { randomUUID } from 'node:crypto';
import { Injectable, Optional } from '@nestjs/common';
import type { PaymentPayload } from '../../../../libs/x402';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { AppLogger } from '../../../logging/app-logger';
import { expiryWindow, type ExpiryWindow } from '../domain/escrow-window';
import { PaymentRejection } from '../domain/exact-payment';
import { paymentErrors } from '../domain/payment-errors';
import { failedSettlementHeader } from '../domain/x402-refusal';
import { pendingReceipt, type Receipt, type ReceiptOutcome } from '../domain/receipt';
import { BudgetReservations } from '../ports/budget-reservations';
import { EscrowChain, type VerifiedDeposit } from '../ports/escrow-chain';
import { EscrowClaims } from '../ports/escrow-claims';
import { PaymentChain } from '../ports/payment-chain';
import { PaymentAlreadyHeld, ReceiptStore } from '../ports/receipt-store';
import { REPLAY_TTL_MS, ReplayStore } from '../ports/replay-store';
import { AcceptedDeposit, type DepositCollaborators } from './accepted-deposit';
import { EscrowClaimFees } from './escrow-claim-fees';
import type { PaymentContext } from './payment-context';
import { PaymentScheme } from './payment-scheme';
import { PaidRateLimit } from './paid-rate-limit';
import { PaymentChallenges } from './payment-challenges';
import { PaymentMetrics } from './payment-metrics';
import { ReceiptOutbox } from './receipt-outbox';

/** What `/v1/escrow/config` publishes and escrow 402 entries name. */
export interface EscrowTerms {
  programId: string;
  provider: string;
}

/**
 * The `escrow` scheme up to serving (spec 2.5, 3.2; docs/decisions.md, "Escrow"), called by
 * PaymentAcceptance once the payload's resource, network and asset passed: the offer's terms, the
 * deposit transaction's own checks, a barred agent, replay look-up, the wallet's paid rate limit,
 * then on chain side by side the slot (the expiry window), the escrow account (it must not exist)
 * and a simulation; the replay claim, the budget reservation of the deposit, the pending receipt;
 * then the deposit is sent and confirmed before anything is served. On only with an escrow
 * program and provider key, and storage (receipts and the durable claim queue).
 */
@Injectable()
export class EscrowDeposits extends PaymentScheme {
  readonly name = 'escrow';
  /** The scheme's terms when it is configured (offered or suspended); null when it is off. */
  readonly terms: EscrowTerms | null;
  private readonly deps: DepositCollaborators | null;

  constructor(
    private readonly paymentChain: PaymentChain,
    private readonly challenges: PaymentChallenges,
    private readonly replay: ReplayStore,
    private readonly rateLimit: PaidRateLimit,
    private readonly budgets: BudgetReservations,
    private readonly claimFees: EscrowClaimFees,
    metrics: PaymentMetrics,
    outbox: ReceiptOutbox,
    private readonly logger: AppLogger,
    private readonly config: GatewayConfig,
    spend: SpendRecorder,
    @Optional() private readonly chain?: EscrowChain,
    @Optional() claims?: EscrowClaims,
    @Optional() receipts?: ReceiptStore,
  ) {
    super();
    logger.setContext(EscrowDeposits.name);
    const programId = config.solana.escrowProgramId;
    const on = programId !== null && chain !== undefined && claims !== undefined && receipts !== undefined;
    this.terms = on ? { programId, provider: chain.provider } : null;
    const claimDueMs = config.http.streamMaxMs + config.settlement.confirmMs + config.http.shutdownGraceMs;
    this.deps = on ? { receipts, claims, budgets, replay, outbox, metrics, logger, network: challenges.terms.network, claimDueMs, spend } : null;
  }

  /** The smallest quote escrow is offered and accepted for (GW_ESCROW_MIN_ATOMIC). */
  get minAtomic(): bigint {
    return this.config.escrow.minQuoteAtomic;
  }

  /** Whether new escrow offers and deposits are taken now: configured, and its claim fees within their bound. */
  get offered(): boolean {
    return this.terms !== null && !this.claimFees.suspended();
  }

  /** The escrow entry a 402 for `quote` carries: none when escrow is off, suspended, or the quote is below the minimum. */
  offerFor(quote: bigint): EscrowTerms | null {
    return this.offered && quote >= this.minAtomic ? this.terms : null;
  }

  /** The window of expiry slots a deposit may name now; null while escrow is off. */
  async window(): Promise<ExpiryWindow | null> {
    if (!this.terms) return null;
    return expiryWindow(await this.paymentChain.slot(), this.config.http.streamMaxMs);
  }

  async accept(payload: PaymentPayload, context: PaymentContext): Promise<AcceptedDeposit> {
    const { terms, chain, deps } = this;
    if (!terms || !chain || !deps) throw paymentErrors.escrowNotAccepted();
    if (context.quote < this.minAtomic) throw paymentErrors.escrowBelowMinimum(this.minAtomic);
    if (this.claimFees.suspended()) throw paymentErrors.escrowSuspended();
    const scheme = payload.payload;
    if (scheme.kind !== 'escrow') throw paymentErrors.schemeMismatch(payload.accepted.scheme, scheme.kind);
    const { accepted } = payload;
    if (accepted.payTo !== terms.provider) throw paymentErrors.recipient(terms.provider);
    if (accepted.escrowProgramId !== undefined && accepted.escrowProgramId !== terms.programId) throw paymentErrors.unverifiable();
    const offered = BigInt(accepted.amount);
    if (offered < context.quote) throw paymentErrors.insufficient(offered, context.quote);
    const deposit = this.verify(scheme.depositTx, { agent: scheme.agentPubkey, serviceId: scheme.serviceId, quote: context.quote }, context.requestId);
    if (await deps.claims.isBarred(deposit.agent)) throw paymentErrors.escrowBarred(deposit.agent);
    if (await this.replay.seen(deposit.replayKey)) throw paymentErrors.replayed(deposit.replayKey);
    const rateLimit = await this.rateLimit.admitWallet(deposit.agent);
    await this.checkOnChain(deposit, chain, context.requestId);
    if (context.budgetedPayers === 'refuse' && (await this.budgets.isBudgeted(deposit.agent))) throw paymentErrors.budgetedPayer(deposit.agent);

    // Its claim's fee is counted now, against the bound, so deposits accepted together cannot pass it together.
    const claimFee = await this.claimFees.hold();
    try {
      const receipt = await this.claimAndRecord(deposit, payload, context, terms, deps);
      await this.settle(deposit, receipt, deps);
      return new AcceptedDeposit(deposit, receipt, rateLimit, claimFee, deps);
    } catch (err) {
      await claimFee.release();
      throw err;
    }
  }

  /** The replay claim, the budget reservation of the deposit and the pending receipt (the durable claim); each undone when a later one fails. */
  private async claimAndRecord(deposit: VerifiedDeposit, payload: PaymentPayload, context: PaymentContext, terms: EscrowTerms, deps: DepositCollaborators): Promise<Receipt> {
    if (!(await this.replay.claim(deposit.replayKey, REPLAY_TTL_MS))) throw paymentErrors.replayed(deposit.replayKey);
    const receipt = this.receiptOf(deposit, payload, context, terms);
    try {
      const refusal = await this.budgets.reserve(receipt.id, deposit.agent, deposit.amount);
      if (refusal) throw refusal;
      await deps.receipts.create(receipt);
    } catch (err) {
      await this.budgets.follow(receipt.id, 'not_charged').catch((followErr: unknown) => this.logger.error({ err: followErr, receipt: receipt.id }, 'budget reservation not released'));
      if (err instanceof PaymentAlreadyHeld) throw paymentErrors.replayed(deposit.replayKey);
      await this.replay.release(deposit.replayKey);
      if (err instanceof GatewayError) throw err;
      this.logger.error({ err, request_id: context.requestId }, 'could not write the pending escrow receipt; deposit refused unused');
      throw paymentErrors.receiptsUnavailable();
    }
    return receipt;
  }

  private verify(transaction: string, payload: { agent: string; serviceId: string; quote: bigint }, requestId: string): VerifiedDeposit {
    const { terms, chain } = this;
    if (!terms || !chain) throw paymentErrors.escrowNotAccepted();
    try {
      return chain.verifyDeposit(transaction, {
        programId: terms.programId,
        provider: terms.provider,
        mint: this.challenges.terms.asset,
        agent: payload.agent,
        serviceId: payload.serviceId,
        minimumAmount: payload.quote,
      });
    } catch (err) {
      if (!(err instanceof PaymentRejection)) throw err;
      this.logger.info({ request_id: requestId, reason: err.reason, detail: err.message }, 'escrow deposit refused');
      throw paymentErrors.unverifiable();
    }
  }

  /** The slot (for the expiry window), the escrow account (it must not exist yet) and a simulation, in one round trip. */
  private async checkOnChain(deposit: VerifiedDeposit, chain: EscrowChain, requestId: string): Promise<void> {
    let slot: bigint;
    let exists: boolean;
    let simulation: Awaited<ReturnType<EscrowChain['simulateDeposit']>>;
    try {
      [slot, exists, simulation] = await Promise.all([this.paymentChain.slot(), chain.escrowExists(deposit.escrow), chain.simulateDeposit(deposit.prepared.signedTransaction)]);
    } catch (err) {
      this.logger.warn({ err, request_id: requestId }, 'solana rpc unavailable while checking an escrow deposit');
      throw paymentErrors.chainUnreachable();
    }
    const window = expiryWindow(slot, this.config.http.streamMaxMs);
    if (deposit.expirySlot < window.minSlot || deposit.expirySlot > window.maxSlot) throw paymentErrors.escrowExpiry(deposit.expirySlot, window.minSlot, window.maxSlot);
    if (exists) throw paymentErrors.escrowExists();
    if (!simulation.ok) {
      this.logger.info({ request_id: requestId, reason: simulation.reason, detail: simulation.detail }, 'escrow deposit simulation failed');
      throw { 'insufficient-funds': paymentErrors.unfunded, 'blockhash-expired': paymentErrors.expired, failed: paymentErrors.unverifiable }[simulation.reason]();
    }
  }

  /**
   * Spec 3.2: the deposit settles before serving. Refused by the node: nothing moved, given back.
   * Landed with an error: nothing moved (the agent paid the fee). Not confirmed in the window: it
   * may still land, so its claim stays taken, and nothing will ever claim it (the agent refunds it
   * at expiry); the receipt says not charged.
   */
  private async settle(deposit: VerifiedDeposit, receipt: Receipt, deps: DepositCollaborators): Promise<void> {
    const path = `/v1/receipts/${receipt.id}`;
    const giveUp = async (outcome: ReceiptOutcome, releaseReplay: boolean, error: GatewayError): Promise<never> => {
      await deps.outbox.write(`receipt ${receipt.id}: ${outcome.status}`, async () => {
        if (await deps.receipts.complete(receipt.id, outcome)) await this.budgets.follow(receipt.id, outcome.status).catch(() => undefined);
      });
      if (releaseReplay) await this.replay.release(deposit.replayKey);
      // The deposit was sent: its failed settlement names it, for an x402 client.
      throw new GatewayError(error.code, error.message, { ...error.headers, 'X-Gw-Receipt': path, ...failedSettlementHeader(error.code, deposit.signature, deps.network) });
    };
    await deps.receipts.recordBroadcast(receipt.id, { broadcastAt: new Date(), signedTransaction: deposit.prepared.signedTransaction, transactionSignature: deposit.signature });
    const sent = await this.paymentChain.send(deposit.prepared);
    if (sent.kind === 'rejected') {
      this.logger.warn({ detail: sent.detail, receipt: receipt.id }, 'escrow deposit refused by the node; nothing moved');
      return giveUp({ status: 'not_charged', amountChargedAtomic: 0n, settledAt: null }, true, paymentErrors.settlementFailed(path));
    }
    const outcome = await this.paymentChain.confirm(deposit.signature, this.config.settlement.confirmMs);
    if (outcome === 'confirmed') return;
    if (outcome === 'failed') {
      return giveUp(
        { status: 'failed', amountChargedAtomic: 0n, settledAt: null },
        false,
        new GatewayError('payment.settlement_reverted', 'the deposit landed on chain with an error and moved no funds; nothing was charged'),
      );
    }
    this.logger.warn({ signature: deposit.signature, receipt: receipt.id }, 'escrow deposit not confirmed in the window; not served, never claimed');
    return giveUp({ status: 'not_charged', amountChargedAtomic: 0n, settledAt: null }, false, paymentErrors.depositUnconfirmed());
  }

  private receiptOf(deposit: VerifiedDeposit, payload: PaymentPayload, context: PaymentContext, terms: EscrowTerms): Receipt {
    return pendingReceipt({
      id: randomUUID(),
      scheme: 'escrow',
      network: payload.accepted.network,
      asset: payload.accepted.asset,
      payerWallet: deposit.agent,
      payTo: terms.provider,
      transactionSignature: deposit.signature,
      amountQuotedAtomic: context.quote,
      amountPaidAtomic: deposit.amount,
      endpoint: context.path,
      model: context.model,
      requestId: context.requestId,
      replayKey: deposit.replayKey,
      signedTransaction: deposit.prepared.signedTransaction,
      escrow: { address: deposit.escrow, expirySlot: deposit.expirySlot, claimSignature: null },
    });
  }
}
