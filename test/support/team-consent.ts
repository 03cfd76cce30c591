import { createPrivateKey, sign } from 'node:crypto';
import type { Keypair } from '@solana/web3.js';
import { joinConsentText, leaveConsentText } from '../../src/modules/orgs/domain/team-wallet-consent';

/** An ed25519 private key as DER PKCS#8: this fixed prefix, then the 32-byte seed (the first half of a Solana secret key). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The wallet's signature of `text`, base64, as a wallet app signs a message. */
export function walletSignature(wallet: Keypair, text: string): string {
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(wallet.secretKey.subarray(0, 32))]), format: 'der', type: 'pkcs8' });
  return sign(null, Buffer.from(text, 'utf8'), key).toString('base64');
}

/** `consent_signature` for the wallet joining the team. */
export function joinConsent(wallet: Keypair, orgId: string, teamId: string): string {
  return walletSignature(wallet, joinConsentText(orgId, teamId, wallet.publicKey.toBase58()));
}

/** `consent_signature` for the wallet leaving the team. */
export function leaveConsent(wallet: Keypair, orgId: string, teamId: string): string {
  return walletSignature(wallet, leaveConsentText(orgId, teamId, wallet.publicKey.toBase58()));
}
