import { ASSOCIATED_TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { type AccountMeta, type PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { checkServiceId, escrowPda, SERVICE_ID_SIZE } from './addresses';
import { DISCRIMINATOR_SIZE, INSTRUCTION_DISCRIMINATORS, startsWith } from './discriminators';
import { checkU64 } from './u64';

export interface DepositParams {
  programId: PublicKey;
  agent: PublicKey;
  provider: PublicKey;
  mint: PublicKey;
  serviceId: Uint8Array;
  /** Atomic units of the mint. */
  amount: bigint;
  expirySlot: bigint;
}

/** The escrow is named either directly or by the agent's service id (the PDA is then derived). */
export type EscrowRef = { escrow: PublicKey } | { serviceId: Uint8Array };

export type ClaimParams = EscrowRef & { programId: PublicKey; agent: PublicKey; provider: PublicKey; mint: PublicKey; actualAmount: bigint };

export type RefundParams = EscrowRef & { programId: PublicKey; agent: PublicKey; mint: PublicKey };

export type EscrowInstruction = { kind: 'deposit'; amount: bigint; serviceId: Uint8Array; expirySlot: bigint } | { kind: 'claim'; actualAmount: bigint } | { kind: 'refund' };

export const DEPOSIT_DATA_SIZE = DISCRIMINATOR_SIZE + 8 + SERVICE_ID_SIZE + 8;
export const CLAIM_DATA_SIZE = DISCRIMINATOR_SIZE + 8;
export const REFUND_DATA_SIZE = DISCRIMINATOR_SIZE;

const meta = (pubkey: PublicKey, isWritable: boolean, isSigner = false): AccountMeta => ({ pubkey, isSigner, isWritable });

// The three programs every escrow instruction ends with, in the order the Anchor accounts declare them.
function programAccounts(): AccountMeta[] {
  return [meta(TOKEN_PROGRAM_ID, false), meta(ASSOCIATED_TOKEN_PROGRAM_ID, false), meta(SystemProgram.programId, false)];
}

function escrowOf(ref: EscrowRef, programId: PublicKey, agent: PublicKey): PublicKey {
  return 'escrow' in ref ? ref.escrow : escrowPda(programId, agent, ref.serviceId)[0];
}

const ata = (mint: PublicKey, owner: PublicKey): PublicKey => getAssociatedTokenAddressSync(mint, owner, true);

/** deposit(amount, service_id, expiry_slot): agent, provider, mint, escrow, agent ATA, vault, token, associated token, system. */
export function depositInstruction(params: DepositParams): TransactionInstruction {
  const { programId, agent, provider, mint } = params;
  const data = Buffer.alloc(DEPOSIT_DATA_SIZE);
  data.set(INSTRUCTION_DISCRIMINATORS.deposit, 0);
  data.writeBigUInt64LE(checkU64(params.amount, 'amount'), DISCRIMINATOR_SIZE);
  data.set(checkServiceId(params.serviceId), DISCRIMINATOR_SIZE + 8);
  data.writeBigUInt64LE(checkU64(params.expirySlot, 'expirySlot'), DISCRIMINATOR_SIZE + 8 + SERVICE_ID_SIZE);
  const [escrow] = escrowPda(programId, agent, params.serviceId);
  return new TransactionInstruction({
    programId,
    keys: [meta(agent, true, true), meta(provider, false), meta(mint, false), meta(escrow, true), meta(ata(mint, agent), true), meta(ata(mint, escrow), true), ...programAccounts()],
    data,
  });
}

/** claim(actual_amount): escrow, agent, provider (signer), mint, vault, provider ATA, agent ATA, token, associated token, system. */
export function claimInstruction(params: ClaimParams): TransactionInstruction {
  const { programId, agent, provider, mint } = params;
  const data = Buffer.alloc(CLAIM_DATA_SIZE);
  data.set(INSTRUCTION_DISCRIMINATORS.claim, 0);
  data.writeBigUInt64LE(checkU64(params.actualAmount, 'actualAmount'), DISCRIMINATOR_SIZE);
  const escrow = escrowOf(params, programId, agent);
  return new TransactionInstruction({
    programId,
    keys: [
      meta(escrow, true),
      meta(agent, true),
      meta(provider, true, true),
      meta(mint, false),
      meta(ata(mint, escrow), true),
      meta(ata(mint, provider), true),
      meta(ata(mint, agent), true),
      ...programAccounts(),
    ],
    data,
  });
}

/** refund(): escrow, agent (signer), mint, vault, agent ATA, token, associated token, system. */
export function refundInstruction(params: RefundParams): TransactionInstruction {
  const { programId, agent, mint } = params;
  const escrow = escrowOf(params, programId, agent);
  return new TransactionInstruction({
    programId,
    keys: [meta(escrow, true), meta(agent, true, true), meta(mint, false), meta(ata(mint, escrow), true), meta(ata(mint, agent), true), ...programAccounts()],
    data: Buffer.from(INSTRUCTION_DISCRIMINATORS.refund),
  });
}

/**
 * What an escrow instruction asks for, or null when the data is no escrow instruction (or, given
 * `programId`, the instruction is for another program). Like Anchor's Borsh decoding, bytes after
 * the arguments are ignored, so this accepts exactly what the program accepts.
 */
export function decodeEscrowInstruction(instruction: { data: Uint8Array; programId?: PublicKey }, programId?: PublicKey): EscrowInstruction | null {
  if (programId && instruction.programId && !instruction.programId.equals(programId)) return null;
  const data = Buffer.from(instruction.data.buffer, instruction.data.byteOffset, instruction.data.byteLength);
  if (startsWith(data, INSTRUCTION_DISCRIMINATORS.deposit) && data.length >= DEPOSIT_DATA_SIZE) {
    return {
      kind: 'deposit',
      amount: data.readBigUInt64LE(DISCRIMINATOR_SIZE),
      serviceId: new Uint8Array(data.subarray(DISCRIMINATOR_SIZE + 8, DISCRIMINATOR_SIZE + 8 + SERVICE_ID_SIZE)),
      expirySlot: data.readBigUInt64LE(DISCRIMINATOR_SIZE + 8 + SERVICE_ID_SIZE),
    };
  }
  if (startsWith(data, INSTRUCTION_DISCRIMINATORS.claim) && data.length >= CLAIM_DATA_SIZE) return { kind: 'claim', actualAmount: data.readBigUInt64LE(DISCRIMINATOR_SIZE) };
  if (startsWith(data, INSTRUCTION_DISCRIMINATORS.refund)) return { kind: 'refund' };
  return null;
}
