/**
 * The two messages a channel's session key signs, byte for byte as the public Solvela clients
 * write them (docs/decisions.md, "Channels", with golden vectors): a voucher of 114 bytes,
 * and a close request. Shared by the gateway, which verifies them, and the client, which signs them.
 */

export const VOUCHER_DOMAIN = 'solvela-channel-voucher-v1';
export const CLOSE_DOMAIN = 'solvela-channel-close-v1';
export const CHANNEL_ID_BYTES = 32;
export const REQUEST_DIGEST_BYTES = 32;
/** Spec 4.8: an A2A voucher's digest binds this permanent prefix and the task id; a change would be a new version. */
export const A2A_DIGEST_PREFIX = 'solvela-a2a-channel-digest-v1:';
export const VOUCHER_MESSAGE_BYTES = VOUCHER_DOMAIN.length + CHANNEL_ID_BYTES + 3 * 8 + REQUEST_DIGEST_BYTES;
const U64_MAX = (1n << 64n) - 1n;

export interface VoucherFields {
  /** The channel id's 32 bytes. */
  channelId: Uint8Array;
  /** Atomic USDC drawn in all, this voucher included. */
  cumulative: bigint;
  expirySlot: bigint;
  nonce: bigint;
  /** SHA-256 of the request body (REST) or of the A2A prefix and task id. */
  requestDigest: Uint8Array;
}

/** The voucher message: the domain, the channel id, cumulative, expiry slot and nonce (u64 little-endian), the request digest. */
export function voucherMessage(voucher: VoucherFields): Uint8Array {
  const message = new Uint8Array(VOUCHER_MESSAGE_BYTES);
  const view = new DataView(message.buffer);
  let offset = writeAscii(message, VOUCHER_DOMAIN, 0);
  offset = writeBytes(message, exactly(voucher.channelId, CHANNEL_ID_BYTES, 'channel id'), offset);
  for (const [name, value] of [
    ['cumulative', voucher.cumulative],
    ['expiry slot', voucher.expirySlot],
    ['nonce', voucher.nonce],
  ] as const) {
    if (value < 0n || value > U64_MAX) throw new RangeError(`${name} does not fit in a u64`);
    view.setBigUint64(offset, value, true);
    offset += 8;
  }
  writeBytes(message, exactly(voucher.requestDigest, REQUEST_DIGEST_BYTES, 'request digest'), offset);
  return message;
}

/** The close message: the domain, then the channel id. */
export function closeMessage(channelId: Uint8Array): Uint8Array {
  const message = new Uint8Array(CLOSE_DOMAIN.length + CHANNEL_ID_BYTES);
  writeBytes(message, exactly(channelId, CHANNEL_ID_BYTES, 'channel id'), writeAscii(message, CLOSE_DOMAIN, 0));
  return message;
}

function exactly(bytes: Uint8Array, length: number, name: string): Uint8Array {
  if (bytes.length !== length) throw new RangeError(`${name} must be ${length} bytes (got ${bytes.length})`);
  return bytes;
}

function writeAscii(target: Uint8Array, text: string, offset: number): number {
  for (let index = 0; index < text.length; index++) target[offset + index] = text.charCodeAt(index);
  return offset + text.length;
}

function writeBytes(target: Uint8Array, bytes: Uint8Array, offset: number): number {
  target.set(bytes, offset);
  return offset + bytes.length;
}

/** What an A2A voucher's `request_digest` is the SHA-256 of: the prefix, then the task id, in UTF-8. */
export function a2aDigestInput(taskId: string): Uint8Array {
  return new TextEncoder().encode(A2A_DIGEST_PREFIX + taskId);
}
