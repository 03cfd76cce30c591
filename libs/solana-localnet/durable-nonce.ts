import { NONCE_ACCOUNT_LENGTH, NonceAccount, SystemProgram, type MessageAccountKeys, type PublicKey, type VersionedTransaction } from '@solana/web3.js';
import type { LiteSVM } from 'litesvm';

/** The system program's AdvanceNonceAccount, as the u32 little-endian index of its instruction. */
const ADVANCE_NONCE_ACCOUNT = 4;

/**
 * Whether the transaction is a durable-nonce transaction that can land now: its first instruction
 * advances a nonce account (the system program's AdvanceNonceAccount) and that account still holds
 * the nonce the transaction names as its blockhash. LiteSVM knows only its current blockhash, so
 * LocalChain runs such a transaction with its blockhash check off; the system program then
 * advances the nonce natively, and a second use of it fails as on a cluster.
 */
export function landableDurableNonce(transaction: VersionedTransaction, accountKeys: MessageAccountKeys, svm: LiteSVM): boolean {
  const [first] = transaction.message.compiledInstructions;
  if (!first || first.data.length < 4 || Buffer.from(first.data).readUInt32LE(0) !== ADVANCE_NONCE_ACCOUNT) return false;
  if (!accountKeys.get(first.programIdIndex)?.equals(SystemProgram.programId)) return false;
  const nonceAddress = accountKeys.get(first.accountKeyIndexes[0]);
  const account = nonceAddress ? svm.getAccount(nonceAddress) : null;
  if (!account || !SystemProgram.programId.equals(account.owner) || account.data.length !== NONCE_ACCOUNT_LENGTH) return false;
  return NonceAccount.fromAccountData(Buffer.from(account.data)).nonce === transaction.message.recentBlockhash;
}

/**
 * An initialised nonce account's data (nonce::state::Versions::Current): version 1, state
 * Initialized, the authority, the stored durable nonce, and the fee calculator's lamports per signature.
 */
export function nonceAccountData(authority: PublicKey, nonce: Uint8Array): Buffer {
  const data = Buffer.alloc(NONCE_ACCOUNT_LENGTH);
  data.writeUInt32LE(1, 0);
  data.writeUInt32LE(1, 4);
  authority.toBuffer().copy(data, 8);
  Buffer.from(nonce).copy(data, 40);
  data.writeBigUInt64LE(5_000n, 72);
  return data;
}
