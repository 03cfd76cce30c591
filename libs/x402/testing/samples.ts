import bs58 from 'bs58';
import type { PaymentRequiredBody } from '../challenge';
import type { Network } from '../network';
import type { ChannelPayload, EscrowPayload, ExactPayload, PaymentPayload, SchemePayload } from '../payment-payload';

/** Sample values for the codec tests. Mainnet USDC, because the official client's default spend controls allow only known mints. */
export const MAINNET: Network = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const PAY_TO = key(7);
export const FEE_PAYER = key(9);
export const ESCROW_PROGRAM = key(3);
export const AGENT = key(5);
export const CHAT = { url: '/v1/chat/completions', method: 'POST' } as const;

export function sampleBody(): PaymentRequiredBody {
  const terms = { network: MAINNET, amount: '21505', asset: USDC_MINT, pay_to: PAY_TO, max_timeout_seconds: 300 };
  return {
    x402_version: 2,
    resource: CHAT,
    accepts: [
      { scheme: 'exact', ...terms },
      { scheme: 'escrow', ...terms, escrow_program_id: ESCROW_PROGRAM },
    ],
    cost_breakdown: { provider_cost: '0.020481', platform_fee: '0.001024', total: '0.021505', currency: 'USDC', fee_percent: 5 },
    error: 'Payment required',
    extensions: { bazaar: { info: { input: { type: 'http', method: 'POST' } } } },
  };
}

/** A payment for the sample body's exact offer, as the official client would echo it back. */
export function samplePayment(payload: SchemePayload): PaymentPayload {
  return {
    x402Version: 2,
    resource: CHAT,
    accepted: {
      scheme: payload.kind,
      network: MAINNET,
      amount: '21505',
      asset: USDC_MINT,
      payTo: PAY_TO,
      maxTimeoutSeconds: 300,
      extra: { decimals: 6, feePayer: FEE_PAYER },
    },
    payload,
  };
}

export const EXACT: ExactPayload = { kind: 'exact', transaction: Buffer.from('signed versioned transaction').toString('base64') };
export const ESCROW: EscrowPayload = {
  kind: 'escrow',
  depositTx: Buffer.from('signed deposit transaction').toString('base64'),
  serviceId: Buffer.alloc(32, 1).toString('base64'),
  agentPubkey: AGENT,
};
export const CHANNEL: ChannelPayload = {
  kind: 'channel',
  voucher: { requestDigest: 'ab'.repeat(32), cumulative: '43010', expirySlot: 350_000_000, channelId: 'c1', signature: 'sig' },
};

function key(fill: number): string {
  return bs58.encode(new Uint8Array(32).fill(fill));
}
