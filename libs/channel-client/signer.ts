import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import type { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { isSmallOrder, strictEd25519Valid } from '../ed25519';
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
 * Whether `signature` is the ed25519 signature of `message` by `publicKey` (base58), checked as
 * strictly as Solana's runtime (libs/ed25519): a key or R of small order verifies nothing, since a
 * session key of small order would let anyone sign that channel's vouchers. False, never a throw.
 */
export function verifySignature(message: Uint8Array, signature: Uint8Array, publicKey: string): boolean {
  const key = sessionKeyBytes(publicKey);
  return key !== null && strictEd25519Valid(key, message, signature);
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
  return key.length !== PUBLIC_KEY_BYTES || isSmallOrder(key) ? null : key;
}
