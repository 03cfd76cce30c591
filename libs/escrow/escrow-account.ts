import { PublicKey } from '@solana/web3.js';
import { checkServiceId, SERVICE_ID_SIZE } from './addresses';
import { ESCROW_ACCOUNT_DISCRIMINATOR, startsWith } from './discriminators';
import { checkU64 } from './u64';

/** discriminator 8, agent 32, provider 32, mint 32, amount 8, service_id 32, expiry_slot 8, bump 1. */
export const ESCROW_ACCOUNT_SIZE = 153;

/** How far ahead of the current slot a deposit's expiry may be, inclusive on both ends. */
export const ESCROW_LIMITS = { minExpirySlots: 50, maxExpirySlots: 216_000 } as const;

export interface EscrowAccount {
  agent: PublicKey;
  provider: PublicKey;
  mint: PublicKey;
  /** The deposit in the mint's atomic units. */
  amount: bigint;
  serviceId: Uint8Array;
  expirySlot: bigint;
  bump: number;
}

const OFFSETS = { agent: 8, provider: 40, mint: 72, amount: 104, serviceId: 112, expirySlot: 144, bump: 152 } as const;

export function encodeEscrowAccount(account: EscrowAccount): Uint8Array {
  const data = Buffer.alloc(ESCROW_ACCOUNT_SIZE);
  data.set(ESCROW_ACCOUNT_DISCRIMINATOR, 0);
  data.set(account.agent.toBytes(), OFFSETS.agent);
  data.set(account.provider.toBytes(), OFFSETS.provider);
  data.set(account.mint.toBytes(), OFFSETS.mint);
  data.writeBigUInt64LE(checkU64(account.amount, 'amount'), OFFSETS.amount);
  data.set(checkServiceId(account.serviceId), OFFSETS.serviceId);
  data.writeBigUInt64LE(checkU64(account.expirySlot, 'expirySlot'), OFFSETS.expirySlot);
  if (!Number.isInteger(account.bump) || account.bump < 0 || account.bump > 255) throw new RangeError(`bump must be a u8, got ${account.bump}`);
  data.writeUInt8(account.bump, OFFSETS.bump);
  return new Uint8Array(data);
}

/** Decodes an escrow account's data; throws unless it is exactly an `Escrow` (size and discriminator). */
export function decodeEscrowAccount(data: Uint8Array): EscrowAccount {
  if (data.length !== ESCROW_ACCOUNT_SIZE) throw new Error(`an escrow account is ${ESCROW_ACCOUNT_SIZE} bytes, got ${data.length}`);
  if (!startsWith(data, ESCROW_ACCOUNT_DISCRIMINATOR)) throw new Error('not an escrow account: wrong discriminator');
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const key = (offset: number): PublicKey => new PublicKey(bytes.subarray(offset, offset + 32));
  return {
    agent: key(OFFSETS.agent),
    provider: key(OFFSETS.provider),
    mint: key(OFFSETS.mint),
    amount: bytes.readBigUInt64LE(OFFSETS.amount),
    serviceId: new Uint8Array(bytes.subarray(OFFSETS.serviceId, OFFSETS.serviceId + SERVICE_ID_SIZE)),
    expirySlot: bytes.readBigUInt64LE(OFFSETS.expirySlot),
    bump: bytes.readUInt8(OFFSETS.bump),
  };
}
