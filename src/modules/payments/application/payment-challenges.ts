import { Injectable } from '@nestjs/common';
import { encodePaymentRequiredHeader, isNetwork, toHeaderForm, type PaymentRequiredBody } from '../../../../libs/x402';
import { GatewayConfig } from '../../../config/gateway-config';
import type { ChatCost } from '../../billing/domain/chat-cost';
import { paymentRequired, type EscrowOffer, type PaymentTerms } from '../domain/payment-offer';
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
    if (!isNetwork(network)) throw new Error(`not a CAIP-2 network: ${network}`);
    this.terms = { network, asset: usdcMint, payTo: recipientWallet };
  }

  challenge(path: string, cost: ChatCost, extensions?: Readonly<Record<string, unknown>>, escrow?: EscrowOffer): Challenge {
    const body = paymentRequired({ url: path, method: 'POST' }, cost, this.terms, extensions, escrow);
    const feePayer = this.sponsorship.feePayerFor(cost.total) ?? undefined;
    return { body, header: encodePaymentRequiredHeader(toHeaderForm(body, { feePayer })) };
  }
}
