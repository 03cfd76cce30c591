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

/** The 402 quote body (spec 2.4): one `exact` offer for the quoted amount, and its breakdown. */
export function paymentRequired(resource: { url: string; method: 'POST' }, cost: ChatCost, terms: PaymentTerms, extensions?: Readonly<Record<string, unknown>>): PaymentRequiredBody {
  return {
    x402_version: X402_VERSION,
    resource,
    accepts: [
      {
        scheme: 'exact',
        network: terms.network,
        amount: cost.total.toString(),
        asset: terms.asset,
        pay_to: terms.payTo,
        max_timeout_seconds: MAX_TIMEOUT_SECONDS,
      },
    ],
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
