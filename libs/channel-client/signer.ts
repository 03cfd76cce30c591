import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { closeMessage, voucherMessage, type VoucherFields } from './messages';

/*
 * ed25519 through node:crypto (OpenSSL) rather than a JavaScript library: tweetnacl is not installed
 * (web3.js 1.x signs with @noble/curves), and @noble/curves is only a transitive dependency here,
 * which a web3.js upgrade could take away. node:crypto needs the raw 32-byte keys wrapped in DER,
 * whose ed25519 prefixes (RFC 8410) are fixed. The specs cross-check against @noble/curves.
 */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const SEED_BYTES = 32;
const PUBLIC_KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;
/**
 * The y-coordinates (the sign bit cleared) of the curve points of small order, among them the
 * non-canonical spellings of 0 and 1: libsodium's blocklist. OpenSSL verifies against such a key
 * (the all-zero key accepts the all-zero signature), and any signature made for one verifies for
 * many messages, so a session key of small order would let anyone sign that channel's vouchers.
 */
const SMALL_ORDER_Y = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
];

/** Signs a channel's vouchers and its close with the channel's session key. */
export class ChannelSigner {
  /** The session key, base58: the `session_key` the channel was opened with. */
  readonly publicKey: string;
  private readonly privateKey: KeyObject;

  /** `secret`: Solana's 64-byte secret key (seed, then public key), or a web3.js Keypair. */
  constructor(secret: Uint8Array | Pick<Keypair, 'secretKey'>) {
    const secretKey = secret instanceof Uint8Array ? secret : secret.secretKey;
    if (secretKey.length !== SEED_BYTES + PUBLIC_KEY_BYTES) throw new RangeError(`a secret key must be 64 bytes (got ${secretKey.length})`);
    this.privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secretKey.subarray(0, SEED_BYTES)]), format: 'der', type: 'pkcs8' });
    const derived = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
    // A secret key whose halves disagree would sign vouchers the gateway refuses as bad signatures.
    if (!derived.equals(secretKey.subarray(SEED_BYTES))) throw new RangeError('the secret key does not hold the public key of its seed');
    this.publicKey = bs58.encode(derived);
  }

  signVoucher(fields: VoucherFields): Uint8Array {
    return this.sign(voucherMessage(fields));
  }

  signClose(channelId: Uint8Array): Uint8Array {
    return this.sign(closeMessage(channelId));
  }

  private sign(message: Uint8Array): Uint8Array {
    return new Uint8Array(sign(null, message, this.privateKey));
  }
}

/**
 * Whether `signature` is the ed25519 signature of `message` by `publicKey` (base58); false, never
 * a throw, on malformed input or a key of small order.
 */
export function verifySignature(message: Uint8Array, signature: Uint8Array, publicKey: string): boolean {
  if (signature.length !== SIGNATURE_BYTES) return false;
  const key = sessionKeyBytes(publicKey);
  if (key === null) return false;
  try {
    return verify(null, message, createPublicKey({ key: Buffer.concat([SPKI_PREFIX, key]), format: 'der', type: 'spki' }), signature);
  } catch {
    // OpenSSL refuses some 32-byte strings as keys (not a curve point): no signature verifies against them.
    return false;
  }
}

/** Whether `publicKey` (base58) can sign vouchers `verifySignature` accepts: 32 bytes, not of small order. */
export function usableSessionKey(publicKey: string): boolean {
  return sessionKeyBytes(publicKey) !== null;
}

function sessionKeyBytes(publicKey: string): Uint8Array | null {
  let key: Uint8Array;
  try {
    key = bs58.decode(publicKey);
  } catch {
    return null;
  }
  return key.length !== PUBLIC_KEY_BYTES || hasSmallOrder(key) ? null : key;
}

function hasSmallOrder(key: Uint8Array): boolean {
  const y = Buffer.from(key);
  y[PUBLIC_KEY_BYTES - 1] &= 0x7f;
  return SMALL_ORDER_Y.includes(y.toString('hex'));
}
