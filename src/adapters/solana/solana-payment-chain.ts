import { setTimeout as sleep } from 'node:timers/promises';
import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
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
import { PaymentChain, type BroadcastOutcome, type SimulationOutcome } from '../../modules/payments/ports/payment-chain';
import { verifyExactTransfer } from './exact-transfer-verifier';
import { decodePaymentTransaction } from './payment-transaction-wire';
import { createRpcConnection } from './rpc-connection';

export interface SettlementTiming {
  /** Bound on each JSON-RPC call. */
  rpcTimeoutMs: number;
  /** How long a broadcast waits for `confirmed` before reporting it unconfirmed. */
  confirmationTimeoutMs: number;
  pollIntervalMs: number;
}

const DEFAULT_TIMING: SettlementTiming = { rpcTimeoutMs: 5_000, confirmationTimeoutMs: 30_000, pollIntervalMs: 250 };
// The x402 client takes its blockhash at `confirmed`; checking at `finalized` would refuse fresh ones.
const COMMITMENT: Commitment = 'confirmed';
/** SPL Token's TokenError::InsufficientFunds. */
const TOKEN_INSUFFICIENT_FUNDS = 1;
/** nonce::state::State::Initialized, the u32 after the version in a nonce account. */
const NONCE_INITIALIZED = 1;
// web3.js 1.x reports a JSON-RPC error answer to simulateTransaction only through this message prefix.
const SIMULATION_REFUSED = 'failed to simulate transaction: ';
// How nodes word a fee payer that cannot pay for the transaction.
const FEE_PAYER_FAULTS = /insufficient funds for fee|InsufficientFundsForFee|AccountNotFound|Attempt to debit an account but found no record of a prior credit/i;

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

  async simulate(transactionBase64: string): Promise<SimulationOutcome> {
    let transaction: VersionedTransaction;
    try {
      ({ transaction } = decodePaymentTransaction(transactionBase64));
    } catch (err) {
      return { ok: false, reason: 'failed', detail: errorMessage(err) };
    }
    let simulation: Awaited<ReturnType<Connection['simulateTransaction']>>;
    try {
      simulation = await this.connection.simulateTransaction(transaction, { sigVerify: false, replaceRecentBlockhash: false, commitment: COMMITMENT });
    } catch (err) {
      // The node refusing this transaction is a verdict on it; any other failure is the RPC's.
      if (err instanceof Error && err.message.startsWith(SIMULATION_REFUSED)) return { ok: false, reason: 'failed', detail: err.message };
      throw err;
    }
    const { err, logs } = simulation.value;
    if (err === null) return { ok: true };
    const insufficient = isTokenInsufficientFunds(transaction, err) || (logs ?? []).some((line) => /insufficient funds/i.test(line));
    return { ok: false, reason: insufficient ? 'insufficient-funds' : 'failed', detail: JSON.stringify(err) };
  }

  async broadcast(transactionBase64: string): Promise<BroadcastOutcome> {
    let transaction: VersionedTransaction;
    try {
      const wire = decodePaymentTransaction(transactionBase64);
      transaction = wire.transaction;
      const feePayer = transaction.message.staticAccountKeys[0].toBase58();
      if (this.feePayers.owns(feePayer)) {
        const signature = this.feePayers.sign(feePayer, wire.messageBytes);
        if (!signature) return { ok: false, reason: 'rejected', signature: null, detail: 'fee payer key unavailable' };
        transaction.signatures[0] = signature;
      }
    } catch (err) {
      return { ok: false, reason: 'rejected', signature: null, detail: errorMessage(err) };
    }
    // The transaction id; for a sponsored payment, our (deterministic) Ed25519 signature.
    const signature = bs58.encode(transaction.signatures[0]);

    // Already sent (the client may broadcast its own payment too): its own status is the outcome,
    // and only a landing without error at `confirmed` counts as paid.
    try {
      const [earlier] = (await this.connection.getSignatureStatuses([signature])).value;
      if (earlier) return this.confirmation(signature);
    } catch (err) {
      return { ok: false, reason: 'rejected', signature, detail: `status unknown: ${errorMessage(err)}` };
    }

    try {
      // Simulated already; the node must not retry a payment on its own.
      await this.connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true, maxRetries: 0 });
    } catch (err) {
      if (err instanceof SendTransactionError) {
        this.restIfFeePayerAtFault(transaction, err.message);
        return { ok: false, reason: 'rejected', signature, detail: err.message };
      }
      // Transport failure: the node may still have received it, so its status decides.
    }
    return this.confirmation(signature);
  }

  /** Spec 8: a fee payer that could not pay (no SOL, no account) rests 60 s; other refusals are not its fault. */
  private restIfFeePayerAtFault(transaction: VersionedTransaction, detail: string): void {
    const feePayer = transaction.message.staticAccountKeys[0].toBase58();
    if (this.feePayers.owns(feePayer) && FEE_PAYER_FAULTS.test(detail)) this.feePayers.markFailed(feePayer);
  }

  private async confirmation(signature: string): Promise<BroadcastOutcome> {
    const deadline = Date.now() + this.timing.confirmationTimeoutMs;
    for (;;) {
      const status = await this.connection.getSignatureStatuses([signature]).then(
        (statuses) => statuses.value[0],
        () => null, // an RPC hiccup while waiting: ask again
      );
      if (status?.err) return { ok: false, reason: 'failed', signature, detail: JSON.stringify(status.err) };
      if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return { ok: true, signature };
      if (Date.now() + this.timing.pollIntervalMs > deadline) {
        return { ok: false, reason: 'unconfirmed', signature, detail: `not confirmed within ${this.timing.confirmationTimeoutMs} ms` };
      }
      await sleep(this.timing.pollIntervalMs);
    }
  }
}

/** The SPL Token program's InsufficientFunds from one of the transaction's token instructions. */
function isTokenInsufficientFunds(transaction: VersionedTransaction, err: TransactionError): boolean {
  if (typeof err !== 'object' || !('InstructionError' in err) || !Array.isArray(err.InstructionError)) return false;
  const [index, cause] = err.InstructionError as [unknown, unknown];
  if (typeof index !== 'number' || typeof cause !== 'object' || cause === null || !('Custom' in cause)) return false;
  const instruction = transaction.message.compiledInstructions[index];
  const program = instruction && transaction.message.staticAccountKeys[instruction.programIdIndex];
  return cause.Custom === TOKEN_INSUFFICIENT_FUNDS && program !== undefined && program.equals(TOKEN_PROGRAM_ID);
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
