import { randomBytes } from 'node:crypto';
import { AddressLookupTableAccount, MessageAccountKeys, PublicKey, SystemProgram, type VersionedMessage, type VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { Clock, EpochSchedule, FailedTransactionMetadata, LiteSVM, type Account, type AccountInfoBytes } from 'litesvm';
import { landableDurableNonce } from './durable-nonce';
import { EscrowEmulator } from './escrow-emulator';
import { closedAccount } from './account-overlay';
import { executionResult, type ExecutionResult } from './execution-result';
import { disablePretenuring, withFpuScrub } from './jit-fpu-guard';
import { decodeTokenAccount, mintDecimals, tokenAmountJson, type TokenAmountJson } from './token-accounts';
import { transactionErrorJson, type TransactionErrorJson } from './transaction-errors';
import { transactionFee } from './transaction-fee';

export const SLOTS_PER_EPOCH = 432_000;
const MS_PER_SLOT = 400;
// A blockhash can be used for 150 blocks after the one that produced it; here one slot is one block.
const BLOCKHASH_VALIDITY_BLOCKS = 150;

export interface SignatureStatus {
  slot: number;
  err: TransactionErrorJson | null;
}

/** A transaction that was sent over RPC and landed: executed, successfully or not (a failed one pays its fee). */
export interface SentTransaction extends SignatureStatus {
  signature: string;
}

/** Solana's `UiTransactionTokenBalance`. */
export interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: TokenAmountJson;
}

/** Everything getTransaction reports about a landed transaction. */
export interface LandedTransaction extends SentTransaction {
  transaction: VersionedTransaction;
  blockTime: number;
  fee: number;
  execution: ExecutionResult;
  accountKeys: MessageAccountKeys;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
}

/** A transaction either lands or is turned away before it reaches the ledger (failed preflight, stale blockhash, replay). */
export type SendOutcome = { landed: LandedTransaction } | { rejected: ExecutionResult };

export interface Simulation {
  execution: ExecutionResult;
  /** The accounts as the simulation left them, by base58 address. */
  postAccounts: Map<string, AccountInfoBytes>;
}

export interface LocalChainOptions {
  /** Emulates the escrow program (escrow-emulator.ts) at this address. */
  escrowProgramId?: PublicKey;
}

export interface LatestBlockhash {
  blockhash: string;
  lastValidBlockHeight: number;
}

type Listener<T> = (event: T) => void;

function subscribe<T>(listeners: Set<Listener<T>>, listener: Listener<T>): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function toAccountInfo(account: Account): AccountInfoBytes {
  return {
    lamports: Number(account.lamports()),
    data: account.data(),
    owner: new PublicKey(account.owner()),
    executable: account.executable(),
    rentEpoch: Number(account.rentEpoch()),
  };
}

/**
 * LiteSVM with the bookkeeping a validator's RPC needs: a clock that moves only when told, one
 * current blockhash, signature statuses and the landed transactions. Every slot is one block and
 * every landed transaction is final at once.
 */
export class LocalChain {
  readonly svm: LiteSVM;
  private readonly genesisUnixTime = BigInt(Math.floor(Date.now() / 1000));
  private lastValidBlockHeight = BLOCKHASH_VALIDITY_BLOCKS;
  private readonly statuses = new Map<string, SignatureStatus>();
  private readonly landed = new Map<string, LandedTransaction>();
  private readonly landedListeners = new Set<Listener<SentTransaction>>();
  private readonly slotListeners = new Set<Listener<number>>();
  readonly escrow: EscrowEmulator | null;

  constructor(options: LocalChainOptions = {}) {
    disablePretenuring();
    this.svm = new LiteSVM();
    this.escrow = options.escrowProgramId ? new EscrowEmulator(options.escrowProgramId, this.svm) : null;
    // Mainnet's schedule: fixed-length epochs from genesis, no warm-up.
    const slotsPerEpoch = BigInt(SLOTS_PER_EPOCH);
    this.svm.setEpochSchedule(new EpochSchedule(slotsPerEpoch, slotsPerEpoch, false, 0n, 0n));
    this.setClock(0);
  }

  get slot(): number {
    return Number(this.svm.getClock().slot);
  }

  get blockTime(): number {
    return Number(this.svm.getClock().unixTimestamp);
  }

  get transactionCount(): number {
    return this.statuses.size;
  }

  latestBlockhash(): LatestBlockhash {
    return { blockhash: this.svm.latestBlockhash(), lastValidBlockHeight: this.lastValidBlockHeight };
  }

  /** LiteSVM accepts only its current blockhash, so that is the only valid one. */
  isBlockhashValid(blockhash: string): boolean {
    return blockhash === this.svm.latestBlockhash();
  }

  expireBlockhash(): void {
    this.svm.expireBlockhash();
    this.lastValidBlockHeight = this.slot + BLOCKHASH_VALIDITY_BLOCKS;
  }

  /** Moves the clock; a blockhash that falls more than 150 blocks behind expires, as on a real cluster. */
  advanceSlots(count: number): void {
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`cannot advance by ${count} slots`);
    this.setClock(this.slot + count);
    if (this.slot > this.lastValidBlockHeight) this.expireBlockhash();
    for (const listener of this.slotListeners) listener(this.slot);
  }

  /** Credits lamports directly (no faucet transaction, so equal airdrops never collide as duplicates). */
  airdrop(address: PublicKey, lamports: bigint): string {
    const current = this.svm.getAccount(address);
    const credited = Number(lamports) + (current?.lamports ?? 0);
    this.svm.setAccount(address, current ? { ...current, lamports: credited } : systemAccount(credited));
    // The signature only names the airdrop for getSignatureStatuses and signatureSubscribe.
    const signature = bs58.encode(randomBytes(64));
    this.markLanded({ signature, slot: this.slot, err: null });
    return signature;
  }

  simulate(transaction: VersionedTransaction, sigVerify: boolean): Simulation {
    if (this.escrow?.involves(transaction)) {
      const emulated = this.escrow.run(transaction, this.accountKeys(transaction.message), {
        sigVerify,
        blockhashValid: this.isBlockhashValid(transaction.message.recentBlockhash),
        alreadyProcessed: false,
      });
      return { execution: emulated.execution, postAccounts: emulated.execution.err === null ? emulated.postAccounts : new Map() };
    }
    this.svm.withSigverify(sigVerify);
    let outcome: ReturnType<LiteSVM['simulateTransaction']>;
    try {
      outcome = this.withNonceBlockhash(transaction, () => withFpuScrub(() => this.svm.simulateTransaction(transaction)));
    } finally {
      this.svm.withSigverify(true);
    }
    if (outcome instanceof FailedTransactionMetadata) {
      return { execution: executionResult(outcome.meta(), transactionErrorJson(outcome)), postAccounts: new Map() };
    }
    const postAccounts = new Map(outcome.postAccounts().map(([address, account]) => [address.toBase58(), toAccountInfo(account)]));
    return { execution: executionResult(outcome.meta(), null), postAccounts };
  }

  send(transaction: VersionedTransaction, skipPreflight: boolean): SendOutcome {
    if (this.escrow?.involves(transaction)) return this.sendEmulated(transaction, this.escrow, skipPreflight);
    if (!skipPreflight) {
      const preflight = this.simulate(transaction, true).execution;
      if (preflight.err !== null) return { rejected: preflight };
    }
    const signatureBytes = transaction.signatures[0];
    const seenBefore = this.svm.getTransaction(signatureBytes) !== null;
    const accountKeys = this.accountKeys(transaction.message);
    const keys = accountKeys.keySegments().flat();
    const before = keys.map((key) => this.svm.getAccount(key));
    const outcome = this.withNonceBlockhash(transaction, () => withFpuScrub(() => this.svm.sendTransaction(transaction)));
    const failed = outcome instanceof FailedTransactionMetadata;
    const execution = executionResult(failed ? outcome.meta() : outcome, failed ? transactionErrorJson(outcome) : null);
    // A failed transaction lands (and pays its fee) once it passed the runtime's checks; LiteSVM then
    // keeps it in its history. Rejected ones (bad blockhash, replay, signatures) never reach it.
    if (failed && (seenBefore || this.svm.getTransaction(signatureBytes) === null)) return { rejected: execution };
    return { landed: this.recordLanded(transaction, accountKeys, before, execution) };
  }

  /**
   * The escrow emulator computes the transaction's new state; it is written here, all at once, and
   * recorded like any landed transaction. Emulation is deterministic, so the preflight is the same run.
   */
  private sendEmulated(transaction: VersionedTransaction, escrow: EscrowEmulator, skipPreflight: boolean): SendOutcome {
    const signature = bs58.encode(transaction.signatures[0]);
    const accountKeys = this.accountKeys(transaction.message);
    const emulated = escrow.run(transaction, accountKeys, {
      sigVerify: true,
      blockhashValid: this.isBlockhashValid(transaction.message.recentBlockhash),
      alreadyProcessed: this.statuses.has(signature) || this.svm.getTransaction(transaction.signatures[0]) !== null,
    });
    if (!emulated.landed || (!skipPreflight && emulated.execution.err !== null)) return { rejected: emulated.execution };
    const before = accountKeys
      .keySegments()
      .flat()
      .map((key) => this.svm.getAccount(key));
    for (const { address, info } of emulated.writes) this.svm.setAccount(address, info ?? closedAccount());
    return { landed: this.recordLanded(transaction, accountKeys, before, emulated.execution) };
  }

  private recordLanded(transaction: VersionedTransaction, accountKeys: MessageAccountKeys, before: Array<AccountInfoBytes | null>, execution: ExecutionResult): LandedTransaction {
    const keys = accountKeys.keySegments().flat();
    const after = keys.map((key) => this.svm.getAccount(key));
    const record: LandedTransaction = {
      signature: bs58.encode(transaction.signatures[0]),
      slot: this.slot,
      err: execution.err,
      transaction,
      blockTime: this.blockTime,
      fee: Number(transactionFee(transaction.message)),
      execution,
      accountKeys,
      preBalances: before.map((info) => info?.lamports ?? 0),
      postBalances: after.map((info) => info?.lamports ?? 0),
      preTokenBalances: this.tokenBalances(keys, before),
      postTokenBalances: this.tokenBalances(keys, after),
    };
    this.landed.set(record.signature, record);
    this.markLanded(record);
    return record;
  }

  signatureStatus(signature: string): SignatureStatus | undefined {
    return this.statuses.get(signature);
  }

  landedTransaction(signature: string): LandedTransaction | undefined {
    return this.landed.get(signature);
  }

  sentTransactions(): SentTransaction[] {
    return [...this.landed.values()].map(({ signature, slot, err }) => ({ signature, slot, err }));
  }

  onLanded(listener: Listener<SentTransaction>): () => void {
    return subscribe(this.landedListeners, listener);
  }

  onSlot(listener: Listener<number>): () => void {
    return subscribe(this.slotListeners, listener);
  }

  /** The message's accounts in ledger order: static keys, then those loaded from lookup tables. */
  accountKeys(message: VersionedMessage): MessageAccountKeys {
    try {
      const addressLookupTableAccounts = message.addressTableLookups.map((lookup) => {
        const table = this.svm.getAccount(lookup.accountKey);
        if (!table) throw new Error(`lookup table ${lookup.accountKey.toBase58()} not found`);
        return new AddressLookupTableAccount({ key: lookup.accountKey, state: AddressLookupTableAccount.deserialize(table.data) });
      });
      return message.getAccountKeys({ addressLookupTableAccounts });
    } catch {
      return new MessageAccountKeys(message.staticAccountKeys); // such a transaction fails to load and never lands
    }
  }

  /** Runs `run` with LiteSVM's blockhash check off when the transaction's blockhash is a nonce its account still holds (durable-nonce.ts). */
  private withNonceBlockhash<T>(transaction: VersionedTransaction, run: () => T): T {
    if (!landableDurableNonce(transaction, this.accountKeys(transaction.message), this.svm)) return run();
    this.svm.withBlockhashCheck(false);
    try {
      return run();
    } finally {
      this.svm.withBlockhashCheck(true);
    }
  }

  private markLanded(sent: SentTransaction): void {
    this.statuses.set(sent.signature, { slot: sent.slot, err: sent.err });
    for (const listener of this.landedListeners) listener(sent);
  }

  private setClock(slot: number): void {
    const epoch = BigInt(Math.floor(slot / SLOTS_PER_EPOCH));
    const unixTime = (slotNumber: number): bigint => this.genesisUnixTime + BigInt(Math.floor((slotNumber * MS_PER_SLOT) / 1000));
    const epochStart = unixTime(Number(epoch) * SLOTS_PER_EPOCH);
    this.svm.setClock(new Clock(BigInt(slot), epochStart, epoch, epoch + 1n, unixTime(slot)));
  }

  private tokenBalances(keys: PublicKey[], accounts: Array<AccountInfoBytes | null>): TokenBalanceJson[] {
    return keys.flatMap((key, accountIndex) => {
      const account = decodeTokenAccount(key, accounts[accountIndex]);
      const decimals = account && mintDecimals(this.svm, account.mint);
      if (!account || decimals === null) return [];
      return [
        {
          accountIndex,
          mint: account.mint.toBase58(),
          owner: account.owner.toBase58(),
          programId: accounts[accountIndex]?.owner.toBase58() ?? '',
          uiTokenAmount: tokenAmountJson(account.amount, decimals),
        },
      ];
    });
  }
}

function systemAccount(lamports: number): AccountInfoBytes {
  return { lamports, data: new Uint8Array(), owner: SystemProgram.programId, executable: false, rentEpoch: 0 };
}
