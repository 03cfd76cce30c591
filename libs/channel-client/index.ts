/**
 * The client side of channel payments, framework-free: sign vouchers and the close with the
 * session key, pay a 402 from the channel through a wrapped fetch, close. The gateway verifies
 * with the same messages and `verifySignature`.
 */
export {
  voucherMessage,
  closeMessage,
  a2aDigestInput,
  A2A_DIGEST_PREFIX,
  VOUCHER_DOMAIN,
  CLOSE_DOMAIN,
  CHANNEL_ID_BYTES,
  REQUEST_DIGEST_BYTES,
  VOUCHER_MESSAGE_BYTES,
  type VoucherFields,
} from './messages';
export { ChannelSigner, usableSessionKey, verifySignature } from './signer';
export { readQuote, readTaskQuote, type ChannelQuote } from './quote';
export { channelPaymentPayload, channelPaymentSignature, type SignedVoucher } from './payment-header';
export { wrapFetchWithChannel, type ChannelFetch, type ChannelFetchOptions } from './channel-fetch';
export { readRpcRefusal, type RpcRefusal } from './rpc-refusal';
export { closeChannel, channelIdBytes, readCurrentSlot, readLastCumulative, ChannelRouteError, type ChannelCloseAnswer, type Fetch } from './gateway-routes';
