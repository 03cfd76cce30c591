import { createPublicKey, verify } from 'node:crypto';
import bs58 from 'bs58';

// The texts are apart from the check so that the console shows them without Node's crypto.
export { joinConsentText, leaveConsentText } from './consent-texts';

/** An ed25519 public key as DER SubjectPublicKeyInfo: this fixed prefix, then the 32 key bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const CANONICAL_BASE64 = /^[A-Za-z0-9+/]{86}==$/;

/**
 * Whether `signature` (base64 of 64 bytes) is the wallet's ed25519 signature of `text` (UTF-8).
 * The wallet is its public key, base58 (docs/decisions.md, "Whose word makes a team").
 */
export function walletSigned(wallet: string, text: string, signature: string): boolean {
  if (!CANONICAL_BASE64.test(signature)) return false;
  let key: Uint8Array;
  try {
    key = bs58.decode(wallet);
  } catch {
    return false;
  }
  if (key.length !== 32) return false;
  try {
    const publicKey = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key]), format: 'der', type: 'spki' });
    return verify(null, Buffer.from(text, 'utf8'), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    // Not a point on the curve: no signature can verify for it.
    return false;
  }
}
