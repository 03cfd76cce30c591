import { Injectable } from '@nestjs/common';
import type { ChatCost } from '../../billing/domain/chat-cost';
import { EscrowDeposits } from './escrow-deposits';
import { PaymentChallenges, type Challenge } from './payment-challenges';

/**
 * What a paid surface tells a client about paying: the 402 quote, with an `escrow` entry beside
 * `exact` whenever escrow is offered for that amount (chat and A2A; the tools sell `exact` only),
 * and a refusal with the x402 headers that explain it.
 */
@Injectable()
export class PaymentOffers {
  constructor(
    private readonly challenges: PaymentChallenges,
    private readonly deposits: EscrowDeposits,
  ) {}

  quote(path: string, cost: ChatCost, extensions?: Readonly<Record<string, unknown>>): Challenge {
    return this.challenges.challenge(path, cost, extensions, this.deposits.offerFor(cost.total) ?? undefined);
  }

  /** `err` with the x402 headers of its refusal, when it is one (PaymentChallenges.refusal). */
  refusal(err: unknown, path: string, cost: ChatCost, transaction: string): unknown {
    return this.challenges.refusal(err, path, cost, transaction);
  }
}
