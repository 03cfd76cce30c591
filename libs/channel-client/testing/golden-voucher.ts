import type { VoucherFields } from '../messages';

/** The voucher of the golden vector (docs/decisions.md, "Channels"): the public Solvela clients' bytes for these fields. */
export const GOLDEN_VOUCHER: VoucherFields = {
  channelId: new Uint8Array(32).fill(0x11),
  cumulative: 2625n,
  expirySlot: 1_000_750n,
  nonce: 42n,
  requestDigest: new Uint8Array(32).fill(0x22),
};
