import type { TransactionVersion, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { ExecutionResult } from './execution-result';
import type { LandedTransaction, TokenBalanceJson } from './local-chain';
import type { TransactionErrorJson } from './transaction-errors';

export const TRANSACTION_ENCODINGS = ['json', 'base64', 'base58'] as const;
export type TransactionEncoding = (typeof TRANSACTION_ENCODINGS)[number];

/** Solana's `UiTransactionStatusMeta` (the fields web3.js and kit read). */
export interface TransactionMetaJson {
  err: TransactionErrorJson | null;
  status: { Ok: null } | { Err: TransactionErrorJson };
  fee: number;
  preBalances: number[];
  postBalances: number[];
  innerInstructions: ExecutionResult['innerInstructions'];
  logMessages: string[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
  rewards: [];
  loadedAddresses: { writable: string[]; readonly: string[] };
  computeUnitsConsumed: number;
  returnData?: ExecutionResult['returnData'];
}

export interface TransactionJson {
  signatures: string[];
  message: {
    accountKeys: string[];
    header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
    recentBlockhash: string;
    instructions: Array<{ programIdIndex: number; accounts: number[]; data: string; stackHeight: null }>;
    addressTableLookups?: Array<{ accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }>;
  };
}

/** Solana's `EncodedConfirmedTransactionWithStatusMeta`: the getTransaction result. */
export interface ConfirmedTransactionJson {
  slot: number;
  blockTime: number;
  version: TransactionVersion;
  meta: TransactionMetaJson;
  transaction: TransactionJson | [string, 'base64' | 'base58'];
}

export function statusJson(err: TransactionErrorJson | null): TransactionMetaJson['status'] {
  return err === null ? { Ok: null } : { Err: err };
}

function transactionJson(transaction: VersionedTransaction): TransactionJson {
  const { message } = transaction;
  return {
    signatures: transaction.signatures.map((signature) => bs58.encode(signature)),
    message: {
      accountKeys: message.staticAccountKeys.map((key) => key.toBase58()),
      header: message.header,
      recentBlockhash: message.recentBlockhash,
      instructions: message.compiledInstructions.map((instruction) => ({
        programIdIndex: instruction.programIdIndex,
        accounts: instruction.accountKeyIndexes,
        data: bs58.encode(instruction.data),
        stackHeight: null,
      })),
      ...(message.version === 0 && {
        addressTableLookups: message.addressTableLookups.map((lookup) => ({
          accountKey: lookup.accountKey.toBase58(),
          writableIndexes: lookup.writableIndexes,
          readonlyIndexes: lookup.readonlyIndexes,
        })),
      }),
    },
  };
}

function encodedTransaction(transaction: VersionedTransaction, encoding: TransactionEncoding): ConfirmedTransactionJson['transaction'] {
  if (encoding === 'json') return transactionJson(transaction);
  const wire = transaction.serialize();
  return encoding === 'base64' ? [Buffer.from(wire).toString('base64'), 'base64'] : [bs58.encode(wire), 'base58'];
}

export function confirmedTransactionJson(record: LandedTransaction, encoding: TransactionEncoding): ConfirmedTransactionJson {
  const { execution } = record;
  const lookups = record.accountKeys.accountKeysFromLookups;
  return {
    slot: record.slot,
    blockTime: record.blockTime,
    version: record.transaction.version,
    meta: {
      err: record.err,
      status: statusJson(record.err),
      fee: record.fee,
      preBalances: record.preBalances,
      postBalances: record.postBalances,
      innerInstructions: execution.innerInstructions,
      logMessages: execution.logs,
      preTokenBalances: record.preTokenBalances,
      postTokenBalances: record.postTokenBalances,
      rewards: [],
      loadedAddresses: {
        writable: lookups?.writable.map((key) => key.toBase58()) ?? [],
        readonly: lookups?.readonly.map((key) => key.toBase58()) ?? [],
      },
      computeUnitsConsumed: execution.unitsConsumed,
      ...(execution.returnData && { returnData: execution.returnData }),
    },
    transaction: encodedTransaction(record.transaction, encoding),
  };
}
