import { X402_VERSION, type Network, type PaymentRequiredBody } from '../../../../libs/x402';
import { formatUsdc } from '../../billing/domain/atomic-usdc';
import { FEE_PERCENT, type ChatCost } from '../../billing/domain/chat-cost';

/** How long a signed authorization stays acceptable (spec 2.4, 8). */
export const MAX_TIMEOUT_SECONDS = 300;

/** What every offer of this gateway names: the configured chain, mint and recipient. */
export interface PaymentTerms {
  network: Network;
  asset: string;
  payTo: string;
}

/** An escrow offer's own terms: the program, and the provider key its claims come from (its `pay_to`). */
export interface EscrowOffer {
  programId: string;
  provider: string;
}

/**
 * The 402 quote body (spec 2.4): an `exact` offer for the quoted amount, an `escrow` one for the
 * same deposit when escrow is offered (the header form keeps only `exact`), and the breakdown.
 */
export function paymentRequired(
  resource: { url: string; method: 'POST' },
  cost: ChatCost,
  terms: PaymentTerms,
  extensions?: Readonly<Record<string, unknown>>,
  escrow?: EscrowOffer,
): PaymentRequiredBody {
  const offer = { network: terms.network, amount: cost.total.toString(), asset: terms.asset, max_timeout_seconds: MAX_TIMEOUT_SECONDS };
  return {
    x402_version: X402_VERSION,
    resource,
    accepts: [{ scheme: 'exact', ...offer, pay_to: terms.payTo }, ...(escrow ? [{ scheme: 'escrow' as const, ...offer, pay_to: escrow.provider, escrow_program_id: escrow.programId }] : [])],
    cost_breakdown: {
      provider_cost: formatUsdc(cost.providerCost),
      platform_fee: formatUsdc(cost.platformFee),
      total: formatUsdc(cost.total),
      currency: 'USDC',
      fee_percent: FEE_PERCENT as 5,
    },
    error: 'Payment required',
    ...(extensions ? { extensions } : {}),
  };
}
