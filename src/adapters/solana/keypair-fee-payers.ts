import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import type { Secret } from '../../config/secret';
import { FeePayers } from '../../modules/payments/ports/fee-payers';

/** Spec 8: a fee payer key that failed rests this long. */
export const FEE_PAYER_COOLDOWN_MS = 60_000;

/**
 * GW_FEE_PAYER_KEYS as web3.js key pairs. Advertises them in turn, skipping keys that failed in
 * the last minute; when every key is resting it still advertises (the least recently failed),
 * since refusing to quote would be worse than a retry.
 */
export class KeypairFeePayers extends FeePayers {
  private readonly keys: ReadonlyArray<{ address: string; signingKey: KeyObject }>;
  private readonly failedAt = new Map<string, number>();
  private next = 0;

  constructor(
    secrets: readonly Secret<Uint8Array>[],
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.keys = secrets.map((secret) => {
      const keypair = Keypair.fromSecretKey(secret.reveal());
      return { address: keypair.publicKey.toBase58(), signingKey: ed25519PrivateKey(secret.reveal().subarray(0, 32)) };
    });
  }

  advertise(): string | null {
    if (this.keys.length === 0) return null;
    const now = this.now();
    for (let tried = 0; tried < this.keys.length; tried++) {
      const key = this.keys[this.next];
      this.next = (this.next + 1) % this.keys.length;
      if ((this.failedAt.get(key.address) ?? -Infinity) + FEE_PAYER_COOLDOWN_MS <= now) return key.address;
    }
    return [...this.keys].sort((a, b) => (this.failedAt.get(a.address) ?? 0) - (this.failedAt.get(b.address) ?? 0))[0].address;
  }

  addresses(): readonly string[] {
    return this.keys.map((key) => key.address);
  }

  owns(address: string): boolean {
    return this.keys.some((key) => key.address === address);
  }

  sign(address: string, message: Uint8Array): Uint8Array | null {
    const key = this.keys.find((k) => k.address === address);
    return key ? new Uint8Array(sign(null, message, key.signingKey)) : null;
  }

  markFailed(address: string): void {
    if (this.owns(address)) this.failedAt.set(address, this.now());
  }
}

/** Node's own Ed25519 signer from a 32-byte seed (the first half of a Solana secret key), wrapped as PKCS#8. */
function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  return createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' });
}
