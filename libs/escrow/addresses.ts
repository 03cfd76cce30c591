import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';

export const SERVICE_ID_SIZE = 32;
export const ESCROW_SEED = 'escrow';

export function checkServiceId(serviceId: Uint8Array): Uint8Array {
  if (serviceId.length !== SERVICE_ID_SIZE) throw new RangeError(`a service id is ${SERVICE_ID_SIZE} bytes, got ${serviceId.length}`);
  return serviceId;
}

/** The escrow account of an agent's deposit for one service id, with its canonical bump. */
export function escrowPda(programId: PublicKey, agent: PublicKey, serviceId: Uint8Array): [PublicKey, number] {
  return PublicKey.findProgramAddressSync([Buffer.from(ESCROW_SEED), agent.toBuffer(), Buffer.from(checkServiceId(serviceId))], programId);
}

/** The vault: the escrow PDA's associated token account for the mint. */
export function vaultAddress(programId: PublicKey, agent: PublicKey, serviceId: Uint8Array, mint: PublicKey): PublicKey {
  return getAssociatedTokenAddressSync(mint, escrowPda(programId, agent, serviceId)[0], true);
}
