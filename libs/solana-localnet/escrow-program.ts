import { ASSOCIATED_TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync, MINT_SIZE, MintLayout, TOKEN_PROGRAM_ID, type RawAccount } from '@solana/spl-token';
import { PublicKey, SystemProgram } from '@solana/web3.js';
import type { AccountInfoBytes } from 'litesvm';
import {
  ANCHOR_ERROR_MESSAGES,
  ANCHOR_ERRORS,
  decodeEscrowAccount,
  decodeEscrowInstruction,
  encodeEscrowAccount,
  ESCROW_ACCOUNT_DISCRIMINATOR,
  ESCROW_ACCOUNT_SIZE,
  ESCROW_ERROR_MESSAGES,
  ESCROW_ERRORS,
  ESCROW_LIMITS,
  escrowPda,
  ESCROW_SEED,
  INSTRUCTION_DISCRIMINATORS,
  type AnchorErrorName,
  type EscrowAccount,
  type EscrowErrorName,
} from '../escrow';
import { decodeRawTokenAccount, type ProgramRuntime } from './escrow-runtime';

/** One account of the instruction as the message presents it. */
export interface InstructionAccount {
  address: PublicKey;
  isSigner: boolean;
  isWritable: boolean;
}

export interface EscrowCall {
  programId: PublicKey;
  accounts: InstructionAccount[];
  data: Uint8Array;
  slot: bigint;
}

// Compute units the emulated instructions report: the order of magnitude an Anchor program with
// these CPIs consumes, so that budgets sized from a simulation behave as on a cluster.
const UNITS = { deposit: 38_000, claim: 34_000, createTokenAccount: 22_000, refund: 28_000, failed: 6_000 } as const;

// The Anchor account structs, field names as they appear in Anchor's logs.
const DEPOSIT_ACCOUNTS = ['agent', 'provider', 'mint', 'escrow', 'agent_token', 'vault', 'token_program', 'associated_token_program', 'system_program'] as const;
const CLAIM_ACCOUNTS = ['escrow', 'agent', 'provider', 'mint', 'vault', 'provider_token', 'agent_token', 'token_program', 'associated_token_program', 'system_program'] as const;
const REFUND_ACCOUNTS = ['escrow', 'agent', 'mint', 'vault', 'agent_token', 'token_program', 'associated_token_program', 'system_program'] as const;

type Named<Names extends readonly string[]> = { [Name in Names[number]]: InstructionAccount & { name: Name } };

/**
 * The escrow program's instructions with Anchor's dispatch, account validation (in field order)
 * and error reporting. Throws InstructionFailure; the caller drops the state layer then.
 * Returns the compute units consumed.
 */
export function runEscrowProgram(runtime: ProgramRuntime, call: EscrowCall): number {
  const anchor: AnchorChecks = new AnchorChecks(runtime);
  if (call.data.length < 8) anchor.error('InstructionMissing');
  const instruction = decodeEscrowInstruction({ data: call.data });
  if (!instruction) {
    // A known discriminator with arguments too short for it fails to deserialize; anything else has no handler.
    const known = Object.values(INSTRUCTION_DISCRIMINATORS).some((discriminator) => discriminator.every((byte, index) => call.data[index] === byte));
    anchor.error(known ? 'InstructionDidNotDeserialize' : 'InstructionFallbackNotFound');
  }
  runtime.log(`Instruction: ${instruction.kind[0].toUpperCase()}${instruction.kind.slice(1)}`);
  switch (instruction.kind) {
    case 'deposit':
      return deposit(runtime, anchor, call, instruction);
    case 'claim':
      return claim(runtime, anchor, call, instruction.actualAmount);
    case 'refund':
      return refund(runtime, anchor, call);
  }
}

function deposit(runtime: ProgramRuntime, anchor: AnchorChecks, call: EscrowCall, args: { amount: bigint; serviceId: Uint8Array; expirySlot: bigint }): number {
  const a = anchor.accounts(call.accounts, DEPOSIT_ACCOUNTS);
  // Deserialisation, in field order.
  anchor.signer(a.agent);
  const decimals = anchor.mint(a.mint);
  const agentToken = anchor.tokenAccount(a.agent_token);
  anchor.programs(a.token_program, a.associated_token_program, a.system_program);
  // Constraints, in field order.
  anchor.mutable(a.agent);
  anchor.mutable(a.escrow);
  const [escrowAddress, bump] = escrowPda(call.programId, a.agent.address, args.serviceId);
  if (!escrowAddress.equals(a.escrow.address)) anchor.error('ConstraintSeeds', a.escrow);
  runtime.createAccount(a.agent.address, a.escrow.address, ESCROW_ACCOUNT_SIZE, call.programId);
  anchor.mutable(a.agent_token);
  anchor.associatedToken(a.agent_token, agentToken, a.mint.address, a.agent.address);
  anchor.mutable(a.vault);
  if (!getAssociatedTokenAddressSync(a.mint.address, a.escrow.address, true).equals(a.vault.address)) anchor.error('AccountNotAssociatedTokenAccount', a.vault);
  runtime.createAssociatedTokenAccount(a.agent.address, a.vault.address, a.escrow.address, a.mint.address);
  // Handler.
  if (args.amount === 0n) anchor.programError('InvalidAmount');
  if (args.expirySlot < call.slot + BigInt(ESCROW_LIMITS.minExpirySlots)) anchor.programError('ExpiryTooSoon');
  if (args.expirySlot > call.slot + BigInt(ESCROW_LIMITS.maxExpirySlots)) anchor.programError('ExpiryTooFar');
  runtime.transferChecked(a.agent_token.address, a.mint.address, a.vault.address, a.agent.address, args.amount, decimals);
  const escrow: EscrowAccount = {
    agent: a.agent.address,
    provider: a.provider.address,
    mint: a.mint.address,
    amount: args.amount,
    serviceId: args.serviceId,
    expirySlot: args.expirySlot,
    bump,
  };
  const created = runtime.state.get(a.escrow.address);
  if (created) runtime.state.set(a.escrow.address, { ...created, data: encodeEscrowAccount(escrow) });
  return UNITS.deposit;
}

function claim(runtime: ProgramRuntime, anchor: AnchorChecks, call: EscrowCall, actualAmount: bigint): number {
  const a = anchor.accounts(call.accounts, CLAIM_ACCOUNTS);
  const escrow = anchor.escrow(a.escrow, call.programId);
  anchor.signer(a.provider);
  const decimals = anchor.mint(a.mint);
  const vault = anchor.tokenAccount(a.vault);
  const providerToken = runtime.state.get(a.provider_token.address) ? anchor.tokenAccount(a.provider_token) : null;
  const agentToken = anchor.tokenAccount(a.agent_token);
  anchor.programs(a.token_program, a.associated_token_program, a.system_program);

  anchor.escrowConstraints(a.escrow, escrow, call.programId, a.agent, a.mint);
  if (!escrow.provider.equals(a.provider.address)) anchor.programError('Unauthorized', a.provider);
  anchor.mutable(a.agent);
  anchor.mutable(a.provider);
  anchor.mutable(a.vault);
  anchor.associatedToken(a.vault, vault, a.mint.address, a.escrow.address);
  anchor.mutable(a.provider_token);
  let units = UNITS.claim;
  if (providerToken) {
    anchor.associatedToken(a.provider_token, providerToken, a.mint.address, a.provider.address);
  } else {
    if (!getAssociatedTokenAddressSync(a.mint.address, a.provider.address, true).equals(a.provider_token.address)) anchor.error('AccountNotAssociatedTokenAccount', a.provider_token);
    runtime.createAssociatedTokenAccount(a.provider.address, a.provider_token.address, a.provider.address, a.mint.address);
    units += UNITS.createTokenAccount;
  }
  anchor.mutable(a.agent_token);
  anchor.associatedToken(a.agent_token, agentToken, a.mint.address, a.agent.address);

  if (call.slot >= escrow.expirySlot) anchor.programError('EscrowExpired');
  if (actualAmount > escrow.amount) anchor.programError('ClaimExceedsDeposit');
  runtime.transferChecked(a.vault.address, a.mint.address, a.provider_token.address, a.escrow.address, actualAmount, decimals);
  // The rest of the vault, not `amount - actual_amount`: tokens sent to the vault by anyone else go back to the agent too, so the vault can close.
  const rest = runtime.tokenAccount(a.vault.address).amount;
  runtime.transferChecked(a.vault.address, a.mint.address, a.agent_token.address, a.escrow.address, rest, decimals);
  closeEscrow(runtime, a.escrow.address, a.vault.address, a.agent.address);
  return units;
}

function refund(runtime: ProgramRuntime, anchor: AnchorChecks, call: EscrowCall): number {
  const a = anchor.accounts(call.accounts, REFUND_ACCOUNTS);
  const escrow = anchor.escrow(a.escrow, call.programId);
  anchor.signer(a.agent);
  const decimals = anchor.mint(a.mint);
  const vault = anchor.tokenAccount(a.vault);
  const agentToken = anchor.tokenAccount(a.agent_token);
  anchor.programs(a.token_program, a.associated_token_program, a.system_program);

  anchor.escrowConstraints(a.escrow, escrow, call.programId, null, a.mint);
  if (!escrow.agent.equals(a.agent.address)) anchor.programError('Unauthorized', a.agent);
  anchor.mutable(a.agent);
  anchor.mutable(a.vault);
  anchor.associatedToken(a.vault, vault, a.mint.address, a.escrow.address);
  anchor.mutable(a.agent_token);
  anchor.associatedToken(a.agent_token, agentToken, a.mint.address, a.agent.address);

  if (call.slot < escrow.expirySlot) anchor.programError('EscrowNotExpired');
  runtime.transferChecked(a.vault.address, a.mint.address, a.agent_token.address, a.escrow.address, vault.amount, decimals);
  closeEscrow(runtime, a.escrow.address, a.vault.address, a.agent.address);
  return UNITS.refund;
}

/** Closes the vault through the token program, then the escrow as Anchor's `close = agent` does: both rents go to the agent. */
function closeEscrow(runtime: ProgramRuntime, escrow: PublicKey, vault: PublicKey, agent: PublicKey): void {
  runtime.closeTokenAccount(vault, agent, escrow);
  runtime.moveLamports(escrow, agent, BigInt(runtime.state.get(escrow)?.lamports ?? 0));
  runtime.state.set(escrow, null);
}

/** Anchor's account checks, each failing with Anchor's error and log line. */
class AnchorChecks {
  constructor(private readonly runtime: ProgramRuntime) {}

  error(name: AnchorErrorName, account?: InstructionAccount & { name: string }): never {
    const cause = account ? `AnchorError caused by account: ${account.name}.` : 'AnchorError occurred.';
    this.runtime.log(`${cause} Error Code: ${name}. Error Number: ${ANCHOR_ERRORS[name]}. Error Message: ${ANCHOR_ERROR_MESSAGES[name]}.`);
    return this.runtime.fail({ Custom: ANCHOR_ERRORS[name] });
  }

  programError(name: EscrowErrorName, account?: InstructionAccount & { name: string }): never {
    const cause = account ? `AnchorError caused by account: ${account.name}.` : 'AnchorError occurred.';
    this.runtime.log(`${cause} Error Code: ${name}. Error Number: ${ESCROW_ERRORS[name]}. Error Message: ${ESCROW_ERROR_MESSAGES[name]}.`);
    return this.runtime.fail({ Custom: ESCROW_ERRORS[name] });
  }

  accounts<Names extends readonly string[]>(accounts: InstructionAccount[], names: Names): Named<Names> {
    if (accounts.length < names.length) this.error('AccountNotEnoughKeys');
    return Object.fromEntries(names.map((name, index) => [name, { ...accounts[index], name }])) as Named<Names>;
  }

  signer(account: InstructionAccount & { name: string }): void {
    if (!account.isSigner) this.error('AccountNotSigner', account);
  }

  mutable(account: InstructionAccount & { name: string }): void {
    if (!account.isWritable) this.error('ConstraintMut', account);
  }

  /** `Account<Mint>`: returns the decimals. */
  mint(account: InstructionAccount & { name: string }): number {
    const info = this.ownedBy(account, TOKEN_PROGRAM_ID);
    if (info.data.length !== MINT_SIZE) this.error('AccountDidNotDeserialize', account);
    const mint = MintLayout.decode(info.data);
    if (!mint.isInitialized) this.error('AccountDidNotDeserialize', account);
    return mint.decimals;
  }

  /** `Account<TokenAccount>`. */
  tokenAccount(account: InstructionAccount & { name: string }): RawAccount {
    const info = this.ownedBy(account, TOKEN_PROGRAM_ID);
    const token = decodeRawTokenAccount(info);
    if (!token) return this.error('AccountDidNotDeserialize', account);
    return token;
  }

  /** `Account<Escrow>`. */
  escrow(account: InstructionAccount & { name: string }, programId: PublicKey): EscrowAccount {
    const info = this.ownedBy(account, programId);
    if (info.data.length < 8) this.error('AccountDiscriminatorNotFound', account);
    if (!ESCROW_ACCOUNT_DISCRIMINATOR.every((byte, index) => info.data[index] === byte)) this.error('AccountDiscriminatorMismatch', account);
    try {
      return decodeEscrowAccount(info.data);
    } catch {
      return this.error('AccountDidNotDeserialize', account);
    }
  }

  /** `mut, seeds = [b"escrow", escrow.agent, escrow.service_id], bump = escrow.bump, has_one = agent, has_one = mint`. */
  escrowConstraints(
    account: InstructionAccount & { name: string },
    escrow: EscrowAccount,
    programId: PublicKey,
    agent: (InstructionAccount & { name: string }) | null,
    mint: InstructionAccount & { name: string },
  ): void {
    this.mutable(account);
    let address: PublicKey | null;
    try {
      address = PublicKey.createProgramAddressSync([Buffer.from(ESCROW_SEED), escrow.agent.toBuffer(), Buffer.from(escrow.serviceId), Buffer.of(escrow.bump)], programId);
    } catch {
      address = null; // the seeds with that bump land on the curve
    }
    if (!address?.equals(account.address)) this.error('ConstraintSeeds', account);
    if (agent && !escrow.agent.equals(agent.address)) this.error('ConstraintHasOne', account);
    if (!escrow.mint.equals(mint.address)) this.error('ConstraintHasOne', account);
  }

  /** `associated_token::mint = mint, associated_token::authority = owner`. */
  associatedToken(account: InstructionAccount & { name: string }, token: RawAccount, mint: PublicKey, owner: PublicKey): void {
    if (!token.mint.equals(mint)) this.error('ConstraintTokenMint', account);
    if (!token.owner.equals(owner)) this.error('ConstraintTokenOwner', account);
    if (!getAssociatedTokenAddressSync(mint, owner, true).equals(account.address)) this.error('AccountNotAssociatedTokenAccount', account);
  }

  programs(token: InstructionAccount & { name: string }, associated: InstructionAccount & { name: string }, system: InstructionAccount & { name: string }): void {
    if (!token.address.equals(TOKEN_PROGRAM_ID)) this.error('InvalidProgramId', token);
    if (!associated.address.equals(ASSOCIATED_TOKEN_PROGRAM_ID)) this.error('InvalidProgramId', associated);
    if (!system.address.equals(SystemProgram.programId)) this.error('InvalidProgramId', system);
  }

  private ownedBy(account: InstructionAccount & { name: string }, owner: PublicKey): AccountInfoBytes {
    const info = this.runtime.state.get(account.address);
    if (!info) return this.error('AccountNotInitialized', account);
    if (!info.owner.equals(owner)) this.error('AccountOwnedByWrongProgram', account);
    return info;
  }
}

export const FAILED_INSTRUCTION_UNITS = UNITS.failed;
