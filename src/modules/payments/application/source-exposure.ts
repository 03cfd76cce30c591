import { Injectable } from '@nestjs/common';
import type { VerifiedTransfer } from '../domain/exact-payment';
import { paymentErrors } from '../domain/payment-errors';
import { ExposureLedger } from '../ports/exposure-ledger';
import type { PaymentHold } from './payment-hold';

/** A balance read by a simulation, and the source version it was read at. */
export interface BalanceRead {
  version: number;
  /** The source's balance before this payment, in atomic units. */
  balance: bigint;
}

/**
 * In-flight exposure per source token account (docs/decisions.md, "In-flight exposure"): the
 * payments accepted and not yet landed from one source never add up to more than its balance, so
 * N payments against a balance that covers N-1 are not all served while only N-1 can land.
 */
@Injectable()
export class SourceExposure {
  constructor(private readonly ledger: ExposureLedger) {}

  /** Taken before the simulation reads the balance. */
  version(transfer: VerifiedTransfer): Promise<number> {
    return this.ledger.version(transfer.source);
  }

  /** Counts the payment against its source until it lands or is released; 429 when the source is fully committed. */
  async hold(transfer: VerifiedTransfer, id: string, read: BalanceRead, ttlMs: number): Promise<PaymentHold> {
    const { source, amount } = transfer;
    if (!(await this.ledger.admit({ source, id, amount }, read.balance, read.version, ttlMs))) throw paymentErrors.sourceCommitted();
    return {
      release: () => this.ledger.remove(source, id),
      landed: (moved) => (moved ? this.ledger.landed(source, id) : this.ledger.remove(source, id)),
    };
  }
}
