import { GatewayError } from '../../../errors/gateway-error';
import type { ErrorCode } from '../../../errors/error-codes';

export const LAST_CUMULATIVE_HEADER = 'X-Gw-Channel-Last-Cumulative';

/**
 * A draw's refusal after its signature verified: it tells the channel's `last_cumulative` in a
 * header and in the envelope, so the client's next voucher is last_cumulative plus the quote
 * (docs/decisions.md, "Channels").
 */
function drawRefusal(code: ErrorCode, message: string, lastCumulative: bigint, headers: Record<string, string> = {}): GatewayError {
  const last = lastCumulative.toString();
  return new GatewayError(code, message, { ...headers, [LAST_CUMULATIVE_HEADER]: last }, { details: { last_cumulative: last } });
}

/** The refusals of the channel routes and of a draw (docs/decisions.md, "Channels"). */
export const channelErrors = {
  notFound: () => new GatewayError('payment.channel_not_found', 'no channel has this id'),
  notOpen: () => new GatewayError('payment.channel_not_open', 'the voucher names a channel that does not exist or is not open; open a channel, or pay with exact'),
  badSignature: (what: 'voucher' | 'close') => new GatewayError('payment.channel_bad_signature', `the ${what} signature does not verify against the channel's session key`),
  fundingInvalid: (why: string) => new GatewayError('payment.channel_funding_invalid', `the funding transfer cannot open a channel: ${why}`),
  openConflict: () => new GatewayError('payment.channel_open_conflict', 'this funding transaction already opened a channel with another body; repeat the open with the same body to read it'),
  busy: (last: bigint) =>
    drawRefusal('rate_limit.channel_busy', 'another draw (or the close) holds this channel; channels serve one request at a time: retry in a second', last, { 'retry-after': '1' }),
  digestMismatch: (last: bigint) =>
    drawRefusal(
      'payment.channel_digest_mismatch',
      "the voucher's request_digest is not the SHA-256 this request binds: its body's bytes as sent, or on A2A `solvela-a2a-channel-digest-v1:` followed by the task id",
      last,
    ),
  expired: (last: bigint, minSlots: bigint) =>
    drawRefusal('payment.channel_expired', `the voucher's expiry_slot must be at least ${minSlots} slots ahead of the current slot (GET /v1/channel/config); sign a new voucher`, last),
  stale: (last: bigint) => drawRefusal('payment.channel_stale', `the voucher's cumulative is not above the channel's last_cumulative ${last}; sign last_cumulative plus the quote`, last),
  wrongDelta: (last: bigint, quote: bigint) =>
    drawRefusal('payment.channel_wrong_delta', `the voucher must draw the quote exactly: cumulative ${last + quote} (last_cumulative ${last} plus the quote ${quote})`, last),
  overdraw: (last: bigint, deposited: bigint) =>
    drawRefusal('payment.channel_overdraw', `the voucher would draw more than the channel's deposit of ${deposited} atomic USDC; pay this request with exact`, last),
};
