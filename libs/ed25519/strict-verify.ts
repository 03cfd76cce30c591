import { createPublicKey, verify } from 'node:crypto';

/**
 * Encodings (sign bit masked off) of the eight small-order Edwards points, including the
 * non-canonical y = p and y = p + 1. OpenSSL accepts signatures under such keys (with an
 * identity key, R = [S]B verifies for any message); Solana's `verify_strict` does not, and the
 * gateway must never accept a signature the chain will refuse, nor a channel voucher anyone could forge.
 */
const SMALL_ORDER_ENCODINGS = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
].map((hex) => Buffer.from(hex, 'hex'));

/** Whether a 32-byte point encoding is one of small order: no key of it can be trusted, no signature with it as R. */
export function isSmallOrder(point: Uint8Array): boolean {
  return SMALL_ORDER_ENCODINGS.some((encoding) => {
    for (let i = 0; i < 31; i++) if (point[i] !== encoding[i]) return false;
    return (point[31] & 0x7f) === encoding[31];
  });
}

/** Ed25519 as the Solana runtime checks a transaction signature: strict, so no small-order key or R. */
export function strictEd25519Valid(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  if (isSmallOrder(publicKey) || isSmallOrder(signature.subarray(0, 32))) return false;
  try {
    // A JWK imports about ten times faster than the equivalent SPKI DER under OpenSSL 3.
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
    return verify(null, message, key, signature);
  } catch {
    // OpenSSL refuses to decode some 32-byte strings as points: not a valid key.
    return false;
  }
}
