import type { Connection, SimulatedTransactionResponse, SimulateTransactionConfig, TransactionError, VersionedTransaction } from '@solana/web3.js';
import type { FeePayers } from '../../modules/payments/ports/fee-payers';
import type { SimulationOutcome } from '../../modules/payments/ports/payment-chain';
import { decodePaymentTransaction } from './payment-transaction-wire';

// web3.js 1.x reports a JSON-RPC error answer to simulateTransaction only through this message prefix.
const SIMULATION_REFUSED = 'failed to simulate transaction: ';
// How nodes word a transaction they have already processed.
export const ALREADY_PROCESSED = /AlreadyProcessed|already been processed/i;
// How nodes word a fee payer that cannot pay for the transaction.
const FEE_PAYER_FAULTS = /insufficient funds for fee|InsufficientFundsForFee|AccountNotFound|Attempt to debit an account but found no record of a prior credit/i;

// How nodes word their own trouble in a JSON-RPC error answer (-32005 unhealthy or behind, -32016, -32603, a provider's rate limit): nothing said of the transaction.
const NODE_TROUBLE = /node is (unhealthy|behind)|minimum context slot|internal error|too many requests|rate limit/i;

/**
 * The node refusing to simulate the transaction (a bad signature, a malformed message) is a verdict
 * on it: a failed outcome. Null for any other error, the RPC's, among them an error answer in which
 * the node speaks of its own trouble.
 */
export function refusedSimulation(err: unknown): SimulationOutcome | null {
  if (!(err instanceof Error) || !err.message.startsWith(SIMULATION_REFUSED) || NODE_TROUBLE.test(err.message)) return null;
  return { ok: false, reason: 'failed', detail: err.message };
}

/** A simulation that ended with `err`: `fundsError` says the caller recognised the payer's lack of funds in it; logs that say so count too. */
export function failedSimulation(err: TransactionError, logs: readonly string[] | null | undefined, fundsError: boolean): SimulationOutcome {
  // The node no longer knows the blockhash: the payment expired, which the payer fixes by signing again.
  if (err === 'BlockhashNotFound') return { ok: false, reason: 'blockhash-expired', detail: err };
  const insufficient = fundsError || (logs ?? []).some((line) => /insufficient funds/i.test(line));
  return { ok: false, reason: insufficient ? 'insufficient-funds' : 'failed', detail: JSON.stringify(err) };
}

/** The `{ InstructionError: [index, { Custom: code }] }` of a transaction error, else null. */
export function customInstructionError(err: TransactionError): { index: number; code: number } | null {
  if (typeof err !== 'object' || err === null || !('InstructionError' in err) || !Array.isArray(err.InstructionError)) return null;
  const [index, cause] = err.InstructionError as [unknown, unknown];
  if (typeof index !== 'number' || typeof cause !== 'object' || cause === null || !('Custom' in cause) || typeof cause.Custom !== 'number') return null;
  return { index, code: cause.Custom };
}

/** Spec 8: a fee payer that could not pay (no SOL, no account) rests 60 s; other refusals are not its fault. */
export function restIfFeePayerAtFault(feePayers: FeePayers, signedTransaction: string, detail: string): void {
  if (!FEE_PAYER_FAULTS.test(detail)) return;
  const feePayer = decodePaymentTransaction(signedTransaction).transaction.message.staticAccountKeys[0].toBase58();
  if (feePayers.owns(feePayer)) feePayers.markFailed(feePayer);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A decoded payment transaction and what the node's simulation of it returned. */
export interface SimulatedTransaction {
  transaction: VersionedTransaction;
  value: SimulatedTransactionResponse;
}

/**
 * Decodes and simulates a payment transaction. One that cannot be decoded, or that the node
 * refuses to simulate, is the verdict `failed`; any other failure is the RPC's and rejects.
 */
export async function simulatePayment(connection: Connection, transactionBase64: string, config: SimulateTransactionConfig): Promise<SimulatedTransaction | SimulationOutcome> {
  let transaction: VersionedTransaction;
  try {
    ({ transaction } = decodePaymentTransaction(transactionBase64));
  } catch (err) {
    return { ok: false, reason: 'failed', detail: errorMessage(err) };
  }
  try {
    return { transaction, value: (await connection.simulateTransaction(transaction, config)).value };
  } catch (err) {
    const refused = refusedSimulation(err);
    if (refused) return refused;
    throw err;
  }
}
