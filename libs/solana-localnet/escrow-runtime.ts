import {
  AccountLayout,
  AccountState,
  ACCOUNT_SIZE,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  TOKEN_PROGRAM_ID,
  type RawAccount,
} from '@solana/spl-token';
import { type PublicKey, SystemProgram } from '@solana/web3.js';
import bs58 from 'bs58';
import type { AccountInfoBytes } from 'litesvm';
import { SYSTEM_ERRORS, TOKEN_ERRORS } from '../escrow';
import type { AccountOverlay } from './account-overlay';
import { encodeTokenAccount } from './token-accounts';
import type { CompiledInnerInstructionJson } from './execution-result';

/** How an instruction failed, as the `InstructionError` detail: `{ Custom: 6000 }` or a runtime error name. */
export type InstructionErrorDetail = { Custom: number } | string;

export class InstructionFailure extends Error {
  constructor(readonly detail: InstructionErrorDetail) {
    super(typeof detail === 'string' ? detail : `custom program error: 0x${detail.Custom.toString(16)}`);
  }
}

/**
 * The runtime around one emulated program instruction: the accounts it may change, its logs, and
 * the calls it makes into the system, associated token and token programs. Those calls are carried
 * out here with the programs' own rules and errors (token-accounts.ts reads what they write), logged
 * and listed as inner instructions at stack height 2 as a validator reports CPIs; the calls the
 * associated token program itself makes (stack height 3) are folded into its own.
 */
export class ProgramRuntime {
  readonly logs: string[] = [];
  readonly inner: CompiledInnerInstructionJson[] = [];

  constructor(
    readonly state: AccountOverlay,
    private readonly indexOf: (address: PublicKey) => number,
    readonly rentExempt: (size: number) => bigint,
  ) {}

  log(message: string): void {
    this.logs.push(`Program log: ${message}`);
  }

  fail(detail: InstructionErrorDetail): never {
    throw new InstructionFailure(detail);
  }

  /** Moves lamports the way a program may: out of an account it owns or a signer's system account. */
  moveLamports(from: PublicKey, to: PublicKey, lamports: bigint): void {
    const source = this.state.get(from);
    if (!source || BigInt(source.lamports) < lamports) this.fail('InsufficientFunds');
    this.state.set(from, { ...source, lamports: source.lamports - Number(lamports) });
    const destination = this.state.get(to);
    this.state.set(to, destination ? { ...destination, lamports: destination.lamports + Number(lamports) } : systemAccount(lamports));
  }

  /** The system program's account creation, as Anchor's `init` does it (it tops up an account that already holds lamports). */
  createAccount(payer: PublicKey, address: PublicKey, space: number, owner: PublicKey): void {
    const lamports = this.rentExempt(space);
    const data = SystemProgram.createAccount({ fromPubkey: payer, newAccountPubkey: address, lamports: Number(lamports), space, programId: owner }).data;
    this.invoke(SystemProgram.programId, [payer, address], data, () => this.systemCreate(payer, address, space, owner, lamports));
  }

  /** The associated token program's `Create`: a new empty token account of `mint` for `wallet`, rent paid by `payer`. */
  createAssociatedTokenAccount(payer: PublicKey, address: PublicKey, wallet: PublicKey, mint: PublicKey): void {
    const accounts = [payer, address, wallet, mint, SystemProgram.programId, TOKEN_PROGRAM_ID];
    this.invoke(ASSOCIATED_TOKEN_PROGRAM_ID, accounts, Uint8Array.of(0), () => {
      this.log('Create');
      this.systemCreate(payer, address, ACCOUNT_SIZE, TOKEN_PROGRAM_ID, this.rentExempt(ACCOUNT_SIZE));
      this.log('Initialize the associated token account');
      const created = this.state.get(address);
      if (created) this.state.set(address, { ...created, data: encodeTokenAccount({ mint, owner: wallet, amount: 0n }) });
    });
  }

  /** SPL Token `TransferChecked` with the token program's checks and errors. */
  transferChecked(source: PublicKey, mint: PublicKey, destination: PublicKey, authority: PublicKey, amount: bigint, decimals: number): void {
    const { data } = createTransferCheckedInstruction(source, mint, destination, authority, amount, decimals);
    this.invoke(TOKEN_PROGRAM_ID, [source, mint, destination, authority], data, () => {
      this.log('Instruction: TransferChecked');
      const from = this.tokenAccount(source);
      const to = this.tokenAccount(destination);
      if (from.state === AccountState.Frozen || to.state === AccountState.Frozen) this.tokenError('Account is frozen', TOKEN_ERRORS.AccountFrozen);
      if (!from.mint.equals(mint) || !to.mint.equals(mint)) this.tokenError('Account not associated with this Mint', 3);
      if (!from.owner.equals(authority)) this.tokenError('owner does not match', 4);
      if (from.amount < amount) this.tokenError('insufficient funds', TOKEN_ERRORS.InsufficientFunds);
      this.writeToken(source, { ...from, amount: from.amount - amount });
      const credited = this.tokenAccount(destination); // the source itself when both are the same account
      this.writeToken(destination, { ...credited, amount: credited.amount + amount });
    });
  }

  /** SPL Token `CloseAccount`: an empty token account's lamports go to `destination`. */
  closeTokenAccount(account: PublicKey, destination: PublicKey, authority: PublicKey): void {
    const { data } = createCloseAccountInstruction(account, destination, authority);
    this.invoke(TOKEN_PROGRAM_ID, [account, destination, authority], data, () => {
      this.log('Instruction: CloseAccount');
      const token = this.tokenAccount(account);
      if (token.amount !== 0n) this.tokenError('Non-native account can only be closed if its balance is zero', TOKEN_ERRORS.NonNativeHasBalance);
      if (!token.owner.equals(authority)) this.tokenError('owner does not match', 4);
      const info = this.state.get(account);
      this.moveLamports(account, destination, BigInt(info?.lamports ?? 0));
      this.state.set(account, null);
    });
  }

  tokenAccount(address: PublicKey): RawAccount {
    const account = decodeRawTokenAccount(this.state.get(address));
    if (!account) this.fail('UninitializedAccount');
    return account;
  }

  private writeToken(address: PublicKey, token: RawAccount): void {
    const info = this.state.get(address);
    if (!info) this.fail('UninitializedAccount');
    const data = Buffer.alloc(ACCOUNT_SIZE);
    AccountLayout.encode(token, data);
    this.state.set(address, { ...info, data: new Uint8Array(data) });
  }

  private tokenError(message: string, code: number): never {
    this.log(`Error: ${message}`);
    return this.fail({ Custom: code });
  }

  private systemCreate(payer: PublicKey, address: PublicKey, space: number, owner: PublicKey, lamports: bigint): void {
    const existing = this.state.get(address);
    if (existing && (existing.data.length > 0 || !existing.owner.equals(SystemProgram.programId))) {
      this.logs.push(`Create Account: account Address { address: ${address.toBase58()}, base: None } already in use`);
      this.fail({ Custom: SYSTEM_ERRORS.AccountAlreadyInUse });
    }
    const held = BigInt(existing?.lamports ?? 0);
    const needed = lamports > held ? lamports - held : 0n;
    const available = BigInt(this.state.get(payer)?.lamports ?? 0);
    if (available < needed) {
      this.logs.push(`Transfer: insufficient lamports ${available}, need ${needed}`);
      this.fail({ Custom: SYSTEM_ERRORS.ResultWithNegativeLamports });
    }
    if (needed > 0n) this.moveLamports(payer, address, needed);
    const funded = this.state.get(address);
    this.state.set(address, { lamports: funded?.lamports ?? 0, data: new Uint8Array(space), owner, executable: false, rentEpoch: 0 });
  }

  private invoke(programId: PublicKey, accounts: PublicKey[], data: Uint8Array, body: () => void): void {
    this.inner.push({ programIdIndex: this.indexOf(programId), accounts: accounts.map((address) => this.indexOf(address)), data: bs58.encode(data), stackHeight: 2 });
    this.logs.push(`Program ${programId.toBase58()} invoke [2]`);
    try {
      body();
    } catch (err) {
      if (err instanceof InstructionFailure) this.logs.push(`Program ${programId.toBase58()} failed: ${err.message}`);
      throw err;
    }
    this.logs.push(`Program ${programId.toBase58()} success`);
  }
}

function systemAccount(lamports: bigint): AccountInfoBytes {
  return { lamports: Number(lamports), data: new Uint8Array(), owner: SystemProgram.programId, executable: false, rentEpoch: 0 };
}

/** An initialised SPL Token (not Token-2022) account's state, or null. */
export function decodeRawTokenAccount(info: AccountInfoBytes | null): RawAccount | null {
  if (!info || !info.owner.equals(TOKEN_PROGRAM_ID) || info.data.length !== ACCOUNT_SIZE) return null;
  const account = AccountLayout.decode(info.data);
  return account.state === AccountState.Uninitialized ? null : account;
}
