import { setTimeout as sleep } from 'node:timers/promises';
import { AccountLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import {
  NONCE_ACCOUNT_LENGTH,
  NonceAccount,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  type Commitment,
  type Connection,
  type TransactionError,
  type VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import type { ExactExpectations, VerifiedTransfer } from '../../modules/payments/domain/exact-payment';
import type { FeePayers } from '../../modules/payments/ports/fee-payers';
import {
  PaymentChain,
  type BlockhashView,
  type ChainStatus,
  type ConfirmOutcome,
  type PreparedTransaction,
  type SendOutcome,
  type SimulationOutcome,
  type TransactionLife,
  type WatchedSource,
} from '../../modules/payments/ports/payment-chain';
import { durableNonceAccount, verifyExactTransfer } from './exact-transfer-verifier';
import { decodePaymentTransaction } from './payment-transaction-wire';
import { createRpcConnection } from './rpc-connection';
import { ALREADY_PROCESSED, customInstructionError, errorMessage, failedSimulation, restIfFeePayerAtFault, simulatePayment } from './rpc-outcomes';

export interface SettlementTiming {
  /** Bound on each JSON-RPC call. */
  rpcTimeoutMs: number;
  /** Between two status look-ups while confirming. */
  pollIntervalMs: number;
}

const DEFAULT_TIMING: SettlementTiming = { rpcTimeoutMs: 5_000, pollIntervalMs: 250 };
// The x402 client takes its blockhash at `confirmed`; checking at `finalized` would refuse fresh ones.
const COMMITMENT: Commitment = 'confirmed';
/** SPL Token's TokenError::InsufficientFunds. */
const TOKEN_INSUFFICIENT_FUNDS = 1;
/** nonce::state::State::Initialized, the u32 after the version in a nonce account. */
const NONCE_INITIALIZED = 1;

/** PaymentChain over a Solana JSON-RPC endpoint; co-signs sponsored transactions with the gateway's fee payers. */
export class SolanaPaymentChain extends PaymentChain {
  private readonly connection: Connection;
  private readonly timing: SettlementTiming;

  constructor(
    rpcUrl: string,
    private readonly feePayers: FeePayers,
    timing: Partial<SettlementTiming> = {},
  ) {
    super();
    this.timing = { ...DEFAULT_TIMING, ...timing };
    this.connection = createRpcConnection(rpcUrl, this.timing.rpcTimeoutMs);
  }

  verifyTransfer(transactionBase64: string, expectations: ExactExpectations): VerifiedTransfer {
    return verifyExactTransfer(transactionBase64, expectations, this.feePayers);
  }

  async blockhashValid({ recentBlockhash, nonceAccount }: Pick<VerifiedTransfer, 'recentBlockhash' | 'nonceAccount'>): Promise<boolean> {
    if (nonceAccount === null) return (await this.connection.isBlockhashValid(recentBlockhash, { commitment: COMMITMENT })).value;
    // A durable-nonce transaction lands while its nonce account still stores the nonce it names.
    const account = await this.connection.getAccountInfo(new PublicKey(nonceAccount), COMMITMENT);
    if (!account || !account.owner.equals(SystemProgram.programId) || account.data.length !== NONCE_ACCOUNT_LENGTH) return false;
    // fromAccountData ignores the state: an uninitialised account would read as the all-zero nonce.
    if (account.data.readUInt32LE(4) !== NONCE_INITIALIZED) return false;
    return NonceAccount.fromAccountData(account.data).nonce === recentBlockhash;
  }

  async simulate(transactionBase64: string, watch: WatchedSource): Promise<SimulationOutcome> {
    const simulation = await simulatePayment(this.connection, transactionBase64, {
      sigVerify: false,
      replaceRecentBlockhash: false,
      commitment: COMMITMENT,
      accounts: { encoding: 'base64', addresses: [watch.tokenAccount] },
    });
    if ('ok' in simulation) return simulation;
    const { transaction } = simulation;
    const { err, logs, accounts } = simulation.value;
    if (err === null) return { ok: true, spendableAfter: spendable(accounts?.[0]?.data, watch.authority) };
    return failedSimulation(err, logs, isTokenInsufficientFunds(transaction, err));
  }

  async latestBlockhash(): Promise<BlockhashView> {
    // The height from getEpochInfo, not getBlockHeight: web3.js shares one pending getBlockHeight
    // among its callers, and a payment must never wait on a poll's call that an outage has held.
    const [latest, epoch] = await Promise.all([this.connection.getLatestBlockhash(COMMITMENT), this.connection.getEpochInfo(COMMITMENT)]);
    // A node that leaves the height out gives its slot, never below the height: life is then underestimated.
    return { ...latest, blockHeight: epoch.blockHeight ?? epoch.absoluteSlot };
  }

  blockHeight(): Promise<number> {
    return this.connection.getBlockHeight(COMMITMENT);
  }

  async lamports(address: string): Promise<bigint> {
    return BigInt(await this.connection.getBalance(new PublicKey(address), COMMITMENT));
  }

  prepare(transactionBase64: string): PreparedTransaction | null {
    const { transaction, messageBytes } = decodePaymentTransaction(transactionBase64);
    const feePayer = transaction.message.staticAccountKeys[0].toBase58();
    if (this.feePayers.owns(feePayer)) {
      const signature = this.feePayers.sign(feePayer, messageBytes);
      if (!signature) return null;
      transaction.signatures[0] = signature;
    }
    return { signedTransaction: Buffer.from(transaction.serialize()).toString('base64'), signature: bs58.encode(transaction.signatures[0]) };
  }

  async send({ signedTransaction, signature }: PreparedTransaction): Promise<SendOutcome> {
    // The payer may have broadcast its own payment: then it is not ours to send again. The node's
    // recent statuses answer fast; the history is searched only when the node refuses the send.
    const seenBefore = await this.onChain(signature, false).catch(() => null);
    if (seenBefore === true) return { kind: 'on-chain' };
    try {
      // With preflight: a transfer that would fail is refused here, and the fee payer pays nothing.
      await this.connection.sendRawTransaction(Buffer.from(signedTransaction, 'base64'), { skipPreflight: false, preflightCommitment: COMMITMENT, maxRetries: 0 });
      return { kind: 'sent' };
    } catch (err) {
      // Processed meanwhile: the payer's own copy landed between the look-up and the send.
      if (err instanceof SendTransactionError && ALREADY_PROCESSED.test(err.message)) return { kind: 'on-chain' };
      // Any other refusal proves nothing landed only when it is not on chain, history included (a
      // copy the payer sent may have left the recent statuses, its blockhash expiring since).
      if (err instanceof SendTransactionError && seenBefore === false) {
        const landed = await this.onChain(signature, true).catch(() => null);
        if (landed === true) return { kind: 'on-chain' };
        if (landed === false) {
          restIfFeePayerAtFault(this.feePayers, signedTransaction, err.message);
          return { kind: 'rejected', detail: err.message };
        }
      }
      return { kind: 'unknown', detail: errorMessage(err) };
    }
  }

  private async onChain(signature: string, searchTransactionHistory: boolean): Promise<boolean> {
    const [status] = (await this.connection.getSignatureStatuses([signature], { searchTransactionHistory })).value;
    return status !== null;
  }

  async confirm(signature: string, timeoutMs: number, signal?: AbortSignal): Promise<ConfirmOutcome> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (signal?.aborted) return 'unconfirmed';
      // Each look-up is bounded by the time left, so a stalled RPC cannot hold the answer past the window.
      const status = await withDeadline(
        this.connection.getSignatureStatuses([signature]).then(
          (statuses) => statuses.value[0],
          () => null, // an RPC hiccup while waiting: ask again
        ),
        deadline,
      );
      if (status?.err) return 'failed';
      if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return 'confirmed';
      if (Date.now() + this.timing.pollIntervalMs > deadline) return 'unconfirmed';
      await sleep(this.timing.pollIntervalMs, undefined, { signal }).catch(() => undefined);
    }
  }

  async status(signature: string): Promise<ChainStatus> {
    const [status] = await this.statuses([signature]);
    return status;
  }

  async statuses(signatures: readonly string[]): Promise<ChainStatus[]> {
    if (signatures.length === 0) return [];
    const { value } = await this.connection.getSignatureStatuses([...signatures], { searchTransactionHistory: true });
    return value.map((status) => {
      if (!status) return 'absent';
      if (status.err) return 'failed';
      return status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized' ? 'confirmed' : 'processing';
    });
  }

  async slot(): Promise<bigint> {
    return BigInt(await this.connection.getSlot(COMMITMENT));
  }

  life(signedTransaction: string): TransactionLife {
    const { transaction } = decodePaymentTransaction(signedTransaction);
    return { signature: bs58.encode(transaction.signatures[0]), recentBlockhash: transaction.message.recentBlockhash, nonceAccount: durableNonceAccount(transaction.message) };
  }
}

/** The SPL Token program's InsufficientFunds from one of the transaction's token instructions. */
function isTokenInsufficientFunds(transaction: VersionedTransaction, err: TransactionError): boolean {
  const custom = customInstructionError(err);
  if (custom === null) return false;
  const instruction = transaction.message.compiledInstructions[custom.index];
  const program = instruction && transaction.message.staticAccountKeys[instruction.programIdIndex];
  return custom.code === TOKEN_INSUFFICIENT_FUNDS && program !== undefined && program.equals(TOKEN_PROGRAM_ID);
}

/** The amount of an SPL token account (a u64 after the 32-byte mint and 32-byte owner), from a simulation's base64 account data. */
/**
 * What `authority` may still move from a token account: all of it for the owner; for a delegate,
 * the balance up to its remaining allowance (nothing once the token program has cleared the delegate).
 */
function spendable(data: unknown, authority: string): bigint | null {
  if (!Array.isArray(data) || typeof data[0] !== 'string') return null;
  const bytes = Buffer.from(data[0], 'base64');
  // Token-2022 accounts begin with the same 165 bytes, extensions follow.
  if (bytes.length < AccountLayout.span) return null;
  const account = AccountLayout.decode(bytes);
  if (account.owner.toBase58() === authority) return account.amount;
  const delegated = account.delegateOption === 1 && account.delegate.toBase58() === authority;
  if (!delegated) return 0n;
  return account.amount < account.delegatedAmount ? account.amount : account.delegatedAmount;
}

/** The promise's value, or null once `deadline` (epoch ms) has passed first. */
async function withDeadline<T>(promise: Promise<T | null>, deadline: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
