import { Injectable } from '@nestjs/common';
import { encodePaymentRequiredHeader, toHeaderForm, type PaymentRequiredBody } from '../../../../libs/x402';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import type { ChatCost } from '../../billing/domain/chat-cost';
import { paymentRequired, type EscrowOffer, type PaymentTerms } from '../domain/payment-offer';
import { failedSettlementHeader, x402Refusal } from '../domain/x402-refusal';
import { FeeSponsorship } from './fee-sponsorship';

/** A 402 challenge: the snake_case body and the base64 camelCase `PAYMENT-REQUIRED` header. */
export interface Challenge {
  body: PaymentRequiredBody;
  header: string;
}

/** Builds 402 challenges from the configured network, mint and recipient (never compiled-in constants). */
@Injectable()
export class PaymentChallenges {
  readonly terms: PaymentTerms;

  constructor(
    config: GatewayConfig,
    private readonly sponsorship: FeeSponsorship,
  ) {
    const { network, usdcMint, recipientWallet } = config.solana;
    this.terms = { network, asset: usdcMint, payTo: recipientWallet };
  }

  challenge(path: string, cost: ChatCost, extensions?: Readonly<Record<string, unknown>>, escrow?: EscrowOffer): Challenge {
    const body = paymentRequired({ url: path, method: 'POST' }, cost, this.terms, extensions, escrow);
    const feePayer = this.sponsorship.feePayerFor(cost.total) ?? undefined;
    return { body, header: encodePaymentRequiredHeader(toHeaderForm(body, { feePayer })) };
  }

  /**
   * `err` with the x402 headers of its refusal, when it is one (docs/decisions.md, "x402 headers on
   * refusals"): a verification refusal gets a fresh `PAYMENT-REQUIRED` for the same quote whose
   * `error` names the reason, a settlement failure a `PAYMENT-RESPONSE` of `success: false` naming
   * `transaction` (the payment's id once known, else empty). The envelope is unchanged.
   */
  refusal(err: unknown, path: string, cost: ChatCost, transaction: string): unknown {
    if (!(err instanceof GatewayError)) return err;
    const refusal = x402Refusal(err.code);
    // Already told (by the step that knew the transaction), or no x402 refusal at all.
    if (!refusal || err.headers['PAYMENT-REQUIRED'] || err.headers['PAYMENT-RESPONSE']) return err;
    const header: Record<string, string> =
      refusal.kind === 'verification'
        ? {
            'PAYMENT-REQUIRED': encodePaymentRequiredHeader(
              toHeaderForm(paymentRequired({ url: path, method: 'POST' }, cost, this.terms), { feePayer: this.sponsorship.feePayerFor(cost.total) ?? undefined, error: refusal.reason }),
            ),
          }
        : failedSettlementHeader(err.code, transaction, this.terms.network);
    return new GatewayError(err.code, err.message, { ...err.headers, ...header }, { cause: err.cause, details: err.details });
  }
}
