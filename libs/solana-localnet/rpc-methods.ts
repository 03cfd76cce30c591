import { type MessageAccountKeys, type PublicKey, VersionedMessage, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { accountRendering, encodeAccount, type AccountJson } from './account-encoding';
import type { ExecutionResult } from './execution-result';
import { choiceOption, configParam, integerParam, objectValue, publicKeyParam, RpcError, stringParam, type RpcHandler } from './json-rpc';
import { SLOTS_PER_EPOCH, type LatestBlockhash, type LocalChain, type Simulation } from './local-chain';
import { decodeTokenAccount, mintDecimals, tokenAmountJson } from './token-accounts';
import { describeTransactionError } from './transaction-errors';
import { confirmedTransactionJson, statusJson, TRANSACTION_ENCODINGS } from './transaction-encoding';
import { transactionFee } from './transaction-fee';

/** The validator API level the responses follow. */
const SOLANA_CORE_VERSION = '2.3.0';
const FEATURE_SET = 0;
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURE_STATUSES = 256;

export interface RpcMethodsOptions {
  /** What getGenesisHash answers: the cluster the localnet stands in for. */
  genesisHash: string;
}

type Method = (params: unknown[]) => unknown;

function decodeWire(text: string, encoding: 'base58' | 'base64'): Uint8Array {
  if (encoding === 'base64') return Buffer.from(text, 'base64');
  try {
    return bs58.decode(text);
  } catch {
    throw RpcError.invalidParams('invalid base58 encoding');
  }
}

/** A wire transaction from params[0], in the `encoding` of the config (Solana's default: base58). */
function transactionParam(params: unknown[], config: Record<string, unknown>): VersionedTransaction {
  const encoding = choiceOption(config, 'encoding', ['base58', 'base64'], 'base58');
  const wire = decodeWire(stringParam(params, 0, 'transaction'), encoding);
  try {
    const transaction = VersionedTransaction.deserialize(wire);
    if (transaction.signatures.length === 0) throw new Error('a transaction needs at least one signature');
    return transaction;
  } catch (err) {
    throw new RpcError(-32602, `failed to deserialize transaction: ${(err as Error).message}`);
  }
}

// The validator checks signatures before simulating or sending, with its own error code.
function signatureFailure(): RpcError {
  return new RpcError(-32003, 'Transaction signature verification failure');
}

/** An inner instruction as simulation reports it: jsonParsed form, here never parsed per program. */
interface PartiallyDecodedInnerJson {
  index: number;
  instructions: Array<{ programId: string; accounts: string[]; data: string; stackHeight: number }>;
}

function partiallyDecodedInner(execution: ExecutionResult, keys: MessageAccountKeys): PartiallyDecodedInnerJson[] {
  const address = (index: number): string => keys.get(index)?.toBase58() ?? '';
  return execution.innerInstructions.map(({ index, instructions }) => ({
    index,
    instructions: instructions.map((instruction) => ({
      programId: address(instruction.programIdIndex),
      accounts: instruction.accounts.map(address),
      data: instruction.data,
      stackHeight: instruction.stackHeight,
    })),
  }));
}

/** Solana's `RpcSimulateTransactionResult`, also the `data` of a failed preflight. */
function simulationValue(
  execution: ExecutionResult,
  extras: {
    accounts?: Array<AccountJson | null> | null;
    innerInstructions?: PartiallyDecodedInnerJson[] | null;
    replacementBlockhash?: LatestBlockhash | null;
  } = {},
) {
  return {
    err: execution.err,
    logs: execution.logs,
    accounts: extras.accounts ?? null,
    unitsConsumed: execution.unitsConsumed,
    returnData: execution.returnData,
    innerInstructions: extras.innerInstructions ?? null,
    replacementBlockhash: extras.replacementBlockhash ?? null,
  };
}

/** The JSON-RPC methods of a Solana validator, answered from the local chain. */
export function rpcMethods(chain: LocalChain, options: RpcMethodsOptions): RpcHandler {
  const { svm } = chain;
  const withContext = <T>(value: T): { context: { slot: number; apiVersion: string }; value: T } => ({
    context: { slot: chain.slot, apiVersion: SOLANA_CORE_VERSION },
    value,
  });

  const accountsAt = (addresses: PublicKey[], config: Record<string, unknown>, postAccounts?: Simulation['postAccounts']) => {
    const rendering = accountRendering(config);
    return addresses.map((address) => {
      const info = postAccounts?.get(address.toBase58()) ?? svm.getAccount(address);
      return info ? encodeAccount(svm, address, info, rendering) : null;
    });
  };

  const methods: Record<string, Method> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': SOLANA_CORE_VERSION, 'feature-set': FEATURE_SET }),
    getGenesisHash: () => options.genesisHash,
    getSlot: () => chain.slot,
    getBlockHeight: () => chain.slot,
    getEpochInfo: () => ({
      absoluteSlot: chain.slot,
      blockHeight: chain.slot,
      epoch: Math.floor(chain.slot / SLOTS_PER_EPOCH),
      slotIndex: chain.slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: chain.transactionCount,
    }),
    getLatestBlockhash: () => withContext(chain.latestBlockhash()),
    isBlockhashValid: (params) => withContext(chain.isBlockhashValid(stringParam(params, 0, 'blockhash'))),
    getMinimumBalanceForRentExemption: (params) => Number(svm.minimumBalanceForRentExemption(BigInt(integerParam(params, 0, 'data length')))),
    getRecentPrioritizationFees: () => [{ slot: chain.slot, prioritizationFee: 0 }],
    getFeeForMessage: (params) => {
      let message: VersionedMessage;
      try {
        message = VersionedMessage.deserialize(Buffer.from(stringParam(params, 0, 'message'), 'base64'));
      } catch (err) {
        throw new RpcError(-32602, `failed to deserialize message: ${(err as Error).message}`);
      }
      return withContext(chain.isBlockhashValid(message.recentBlockhash) ? Number(transactionFee(message)) : null);
    },
    getBalance: (params) => withContext(svm.getAccount(publicKeyParam(params, 0))?.lamports ?? 0),
    getAccountInfo: (params) => withContext(accountsAt([publicKeyParam(params, 0)], configParam(params, 1))[0]),
    getMultipleAccounts: (params) => {
      const list = params[0];
      if (!Array.isArray(list)) throw RpcError.invalidParams('expected an array of addresses');
      if (list.length > MAX_MULTIPLE_ACCOUNTS) throw RpcError.invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      return withContext(
        accountsAt(
          list.map((_, index) => publicKeyParam(list, index)),
          configParam(params, 1),
        ),
      );
    },
    getTokenAccountBalance: (params) => {
      const address = publicKeyParam(params, 0);
      const info = svm.getAccount(address);
      if (!info) throw new RpcError(-32602, 'Invalid param: could not find account');
      const account = decodeTokenAccount(address, info);
      const decimals = account && mintDecimals(svm, account.mint);
      if (!account || decimals === null) throw new RpcError(-32602, 'Invalid param: not a Token account');
      return withContext(tokenAmountJson(account.amount, decimals));
    },
    requestAirdrop: (params) => chain.airdrop(publicKeyParam(params, 0), BigInt(integerParam(params, 1, 'lamports'))),
    sendTransaction: (params) => {
      const config = configParam(params, 1);
      const outcome = chain.send(transactionParam(params, config), config.skipPreflight === true);
      if ('landed' in outcome) return outcome.landed.signature;
      const { err } = outcome.rejected;
      if (err === 'SignatureFailure') throw signatureFailure();
      throw new RpcError(-32002, `Transaction simulation failed: ${describeTransactionError(err ?? 'unknown')}`, simulationValue(outcome.rejected));
    },
    simulateTransaction: (params) => {
      const config = configParam(params, 1);
      const transaction = transactionParam(params, config);
      const sigVerify = config.sigVerify === true;
      const replace = config.replaceRecentBlockhash === true;
      if (sigVerify && replace) throw RpcError.invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      if (replace) transaction.message.recentBlockhash = chain.latestBlockhash().blockhash;
      const simulation = chain.simulate(transaction, sigVerify);
      if (simulation.execution.err === 'SignatureFailure') throw signatureFailure();
      const accountsConfig = objectValue(config.accounts, 'accounts');
      const addresses = accountsConfig.addresses;
      let accounts: Array<AccountJson | null> | null = null;
      if (Array.isArray(addresses) && simulation.execution.err === null) {
        const keys = addresses.map((_, index) => publicKeyParam(addresses, index));
        accounts = accountsAt(keys, { encoding: accountsConfig.encoding ?? 'base64' }, simulation.postAccounts);
      }
      return withContext(
        simulationValue(simulation.execution, {
          accounts,
          innerInstructions: config.innerInstructions === true ? partiallyDecodedInner(simulation.execution, chain.accountKeys(transaction.message)) : null,
          replacementBlockhash: replace ? chain.latestBlockhash() : null,
        }),
      );
    },
    getSignatureStatuses: (params) => {
      const signatures = params[0];
      if (!Array.isArray(signatures)) throw RpcError.invalidParams('expected an array of signatures');
      if (signatures.length > MAX_SIGNATURE_STATUSES) throw RpcError.invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
      // Every status is kept, so searchTransactionHistory changes nothing.
      return withContext(
        signatures.map((_, index) => {
          const status = chain.signatureStatus(stringParam(signatures, index, 'signature'));
          return status ? { slot: status.slot, confirmations: null, err: status.err, status: statusJson(status.err), confirmationStatus: 'finalized' } : null;
        }),
      );
    },
    getTransaction: (params) => {
      const config = configParam(params, 1);
      const record = chain.landedTransaction(stringParam(params, 0, 'signature'));
      const encoding = choiceOption(config, 'encoding', TRANSACTION_ENCODINGS, 'json');
      if (!record) return null;
      const maxVersion = config.maxSupportedTransactionVersion;
      if (record.transaction.version === 0 && (typeof maxVersion !== 'number' || maxVersion < 0)) {
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      return confirmedTransactionJson(record, encoding);
    },
  };

  return (method, params) => {
    if (!Object.hasOwn(methods, method)) throw new RpcError(-32601, 'Method not found');
    return methods[method](params);
  };
}
