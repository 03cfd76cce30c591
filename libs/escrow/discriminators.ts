import { createHash } from 'node:crypto';

/** Anchor's 8-byte prefix: the first bytes of sha256 of `namespace:name`. */
function anchorDiscriminator(preimage: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(preimage).digest().subarray(0, 8));
}

export const DISCRIMINATOR_SIZE = 8;

export const INSTRUCTION_DISCRIMINATORS = {
  deposit: anchorDiscriminator('global:deposit'),
  claim: anchorDiscriminator('global:claim'),
  refund: anchorDiscriminator('global:refund'),
} as const;

export const ESCROW_ACCOUNT_DISCRIMINATOR = anchorDiscriminator('account:Escrow');

export function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  return data.length >= prefix.length && prefix.every((byte, index) => data[index] === byte);
}
