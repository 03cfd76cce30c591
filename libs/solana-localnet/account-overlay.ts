import { SystemProgram, type PublicKey } from '@solana/web3.js';
import type { AccountInfoBytes } from 'litesvm';

/** What a closed account reads as: the runtime keeps no data or owner for an account with no lamports. */
export function closedAccount(): AccountInfoBytes {
  return { lamports: 0, data: new Uint8Array(), owner: SystemProgram.programId, executable: false, rentEpoch: 0 };
}

/**
 * A copy-on-write view of accounts: reads fall through to the layer below, writes stay here until
 * merged. An emulated transaction computes its whole new state in one before anything is written,
 * and a failed instruction is undone by dropping its layer.
 */
export class AccountOverlay {
  private readonly writes = new Map<string, { address: PublicKey; info: AccountInfoBytes | null }>();

  constructor(private readonly below: (address: PublicKey) => AccountInfoBytes | null) {}

  /** The account, or null when it does not exist (no lamports). */
  get(address: PublicKey): AccountInfoBytes | null {
    const written = this.writes.get(address.toBase58());
    const info = written ? written.info : this.below(address);
    return info && info.lamports > 0 ? info : null;
  }

  set(address: PublicKey, info: AccountInfoBytes | null): void {
    this.writes.set(address.toBase58(), { address, info: info && info.lamports > 0 ? info : null });
  }

  /** A layer on top of this one. */
  fork(): AccountOverlay {
    return new AccountOverlay((address) => this.get(address));
  }

  /** Takes over the writes of a layer forked from this one. */
  merge(layer: AccountOverlay): void {
    for (const [key, write] of layer.writes) this.writes.set(key, write);
  }

  /** Every written account, closed ones as null. */
  changes(): Array<{ address: PublicKey; info: AccountInfoBytes | null }> {
    return [...this.writes.values()];
  }
}
