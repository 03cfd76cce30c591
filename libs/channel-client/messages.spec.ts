import { closeMessage, VOUCHER_MESSAGE_BYTES, voucherMessage } from './messages';
import { GOLDEN_VOUCHER as golden } from './testing/golden-voucher';

/** The golden vectors of docs/decisions.md, "Channels", verbatim: the public Solvela clients' bytes. */
const GOLDEN_VOUCHER = 'c29sdmVsYS1jaGFubmVsLXZvdWNoZXItdjEREREREREREREREREREREREREREREREREREREREREREUEKAAAAAAAALkUPAAAAAAAqAAAAAAAAACIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIi';
const GOLDEN_CLOSE = 'c29sdmVsYS1jaGFubmVsLWNsb3NlLXYxERERERERERERERERERERERERERERERERERERERERERE=';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('voucherMessage', () => {
  it('writes the golden vector', () => {
    const message = voucherMessage(golden);
    expect(message).toHaveLength(VOUCHER_MESSAGE_BYTES);
    expect(VOUCHER_MESSAGE_BYTES).toBe(114);
    expect(base64(message)).toBe(GOLDEN_VOUCHER);
  });

  it('takes the whole u64 range', () => {
    const max = (1n << 64n) - 1n;
    const message = voucherMessage({ ...golden, cumulative: max, expirySlot: 0n, nonce: max });
    expect(Buffer.from(message).subarray(58, 66)).toEqual(Buffer.alloc(8, 0xff));
    expect(Buffer.from(message).subarray(66, 74)).toEqual(Buffer.alloc(8, 0));
  });

  it.each([
    ['cumulative', { cumulative: 1n << 64n }],
    ['cumulative', { cumulative: -1n }],
    ['expiry slot', { expirySlot: 1n << 64n }],
    ['nonce', { nonce: -1n }],
  ])('refuses a %s outside u64', (name, fields) => {
    expect(() => voucherMessage({ ...golden, ...fields })).toThrow(new RangeError(`${name} does not fit in a u64`));
  });

  it.each([
    ['channel id', { channelId: new Uint8Array(31) }, 31],
    ['channel id', { channelId: new Uint8Array(33) }, 33],
    ['request digest', { requestDigest: new Uint8Array(0) }, 0],
    ['request digest', { requestDigest: new Uint8Array(64) }, 64],
  ])('refuses a %s of the wrong length', (name, fields, length) => {
    expect(() => voucherMessage({ ...golden, ...fields })).toThrow(new RangeError(`${name} must be 32 bytes (got ${length})`));
  });
});

describe('closeMessage', () => {
  it('writes the golden vector', () => {
    expect(base64(closeMessage(new Uint8Array(32).fill(0x11)))).toBe(GOLDEN_CLOSE);
  });

  it('refuses a channel id of the wrong length', () => {
    expect(() => closeMessage(new Uint8Array(16))).toThrow(new RangeError('channel id must be 32 bytes (got 16)'));
  });
});
