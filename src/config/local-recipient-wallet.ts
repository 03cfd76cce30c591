import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { ConfigError } from './env-reader';

const FILE_NAME = 'recipient-wallet.json';

/**
 * Development default for GW_RECIPIENT_WALLET: a key pair kept under the data directory in the
 * Solana CLI's format (a JSON array of the 64 secret-key bytes), so a developer can later move
 * what it received with the usual tools. Created once, reused on every later start.
 */
export function ensureLocalRecipientWallet(dataDir: string): { address: string; path: string; created: boolean } {
  const path = join(dataDir, FILE_NAME);
  if (existsSync(path)) {
    return { address: readKeypair(path).publicKey.toBase58(), path, created: false };
  }
  const keypair = Keypair.generate();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, JSON.stringify(Array.from(keypair.secretKey)), { mode: 0o600, flag: 'wx' });
  return { address: keypair.publicKey.toBase58(), path, created: true };
}

function readKeypair(path: string): Keypair {
  try {
    const bytes: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!Array.isArray(bytes)) throw new Error('not an array');
    return Keypair.fromSecretKey(Uint8Array.from(bytes as number[]));
  } catch {
    throw new ConfigError(`GW_RECIPIENT_WALLET unset and ${path} is not a Solana key pair file; fix or remove it`);
  }
}
