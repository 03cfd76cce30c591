import { createHash } from 'node:crypto';
import { decodeTransferCheckedInstruction, getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { ComputeBudgetProgram, PublicKey, SystemProgram, TransactionInstruction, type VersionedMessage } from '@solana/web3.js';
import bs58 from 'bs58';
import { PaymentRejection, type ExactExpectations, type VerifiedTransfer } from '../../modules/payments/domain/exact-payment';
import type { FeePayers } from '../../modules/payments/ports/fee-payers';
import { decodePaymentTransaction } from './payment-transaction-wire';
import { strictEd25519Valid } from '../../../libs/ed25519';
import { USDC_DECIMALS } from '../../../libs/x402';

/** The highest priority fee accepted (micro-lamports per compute unit), as x402 facilitators cap it. */
export const MAX_COMPUTE_UNIT_PRICE = 5_000_000n;
/** A payment needs far less (the x402 client asks for 20,000 units); a price needs an explicit limit. */
export const MAX_COMPUTE_UNIT_LIMIT = 200_000;
/** What the runtime charges per required signature, before any priority fee. */
const LAMPORTS_PER_SIGNATURE = 5_000n;
/** SPL Memo (v2), which @x402/svm adds to every payment. Without accounts a memo only logs its text. */
const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;
const ADVANCE_NONCE_ACCOUNT = 4;

interface TransferChecked {
  source: PublicKey;
  mint: PublicKey;
  destination: PublicKey;
  authority: PublicKey;
  amount: bigint;
  decimals: number;
}

/** What a transaction's ComputeBudget instructions set. */
export interface ComputeBudget {
  unitLimit: number | null;
  unitPrice: bigint | null;
}

interface PaymentInstructions {
  transfer: TransferChecked;
  computeUnitPrice: bigint | null;
  computeUnitLimit: number | null;
  nonce: { account: PublicKey; authority: PublicKey } | null;
}

/**
 * Every check of an `exact` payment transaction that needs no chain: one classic-SPL-Token
 * TransferChecked of at least the quote, of the expected mint, into payTo's associated token
 * account; nothing else but compute budget, memos and (when allowed) a leading nonce advance; a
 * fee layout (client-paid or gateway-sponsored) whose required signatures all verify, except the
 * gateway fee payer's own slot. Throws PaymentRejection.
 */
export function verifyExactTransfer(transactionBase64: string, expectations: ExactExpectations, feePayers: FeePayers): VerifiedTransfer {
  const { transaction, messageBytes } = decodePaymentTransaction(transactionBase64);
  const { message } = transaction;
  if (message.addressTableLookups.length > 0) throw new PaymentRejection('lookup-tables');
  const { transfer, computeUnitPrice, computeUnitLimit, nonce } = readInstructions(message, expectations.allowDurableNonce);

  const mint = transfer.mint.toBase58();
  if (mint !== expectations.mint) throw new PaymentRejection('mint', mint);
  if (transfer.decimals !== USDC_DECIMALS) throw new PaymentRejection('decimals', String(transfer.decimals));
  if (transfer.amount < expectations.minimumAmount) throw new PaymentRejection('amount', `${transfer.amount} < ${expectations.minimumAmount}`);
  if (!transfer.destination.equals(associatedTokenAccount(mint, expectations.payTo))) throw new PaymentRejection('destination');

  const payer = transfer.authority.toBase58();
  const source = transfer.source.toBase58();
  if (feePayers.owns(payer) || feePayers.owns(source)) throw new PaymentRejection('fee-payer-transfer');
  const feePayer = message.staticAccountKeys[0].toBase58();
  const layout = feePayers.owns(feePayer) ? 'sponsored' : 'client-paid';
  // A price always comes with a limit (readInstructions), so price x limit is the whole priority fee.
  const priorityFeeLamports = computeUnitPrice !== null && computeUnitLimit !== null ? (computeUnitPrice * BigInt(computeUnitLimit) + 999_999n) / 1_000_000n : 0n;
  if (layout === 'sponsored' && transfer.source.equals(associatedTokenAccount(mint, feePayer))) throw new PaymentRejection('fee-payer-transfer');

  // Client-paid: the payer is account 0 and the only signer. Sponsored: our fee payer is account 0, the payer account 1.
  const payerIndex = layout === 'sponsored' ? 1 : 0;
  if (message.header.numRequiredSignatures !== payerIndex + 1 || message.staticAccountKeys[payerIndex]?.equals(transfer.authority) !== true) {
    throw new PaymentRejection('layout', `${layout} with ${message.header.numRequiredSignatures} signers`);
  }
  if (nonce && !nonce.authority.equals(transfer.authority)) throw new PaymentRejection('durable-nonce', 'nonce authority is not the payer');
  // The sponsored fee payer's slot is filled by the gateway at settlement, so the payer's is the only one to check.
  const payerSignature = transaction.signatures[payerIndex];
  if (!strictEd25519Valid(transfer.authority.toBytes(), messageBytes, payerSignature)) throw new PaymentRejection('signature');

  return {
    payer,
    source,
    destination: transfer.destination.toBase58(),
    amount: transfer.amount,
    signature: bs58.encode(payerSignature),
    replayKey: replayKeyOf(messageBytes),
    feePayer,
    layout,
    recentBlockhash: message.recentBlockhash,
    nonceAccount: nonce ? nonce.account.toBase58() : null,
    priorityFeeLamports,
    networkFeeLamports: LAMPORTS_PER_SIGNATURE * BigInt(message.header.numRequiredSignatures) + priorityFeeLamports,
  };
}

/** The instructions a payment may hold, in one pass; anything else is refused. */
function readInstructions(message: VersionedMessage, allowDurableNonce: boolean): PaymentInstructions {
  const keys = message.staticAccountKeys;
  const keyAt = (index: number): PublicKey => {
    const key = keys[index];
    if (key === undefined) throw new PaymentRejection('undecodable', 'account index outside the message');
    return key;
  };
  let transfer: TransferChecked | null = null;
  let budget: ComputeBudget = { unitLimit: null, unitPrice: null };
  let nonce: PaymentInstructions['nonce'] = null;

  for (const [position, instruction] of message.compiledInstructions.entries()) {
    const program = keyAt(instruction.programIdIndex);
    const accounts = instruction.accountKeyIndexes.map(keyAt);
    const data = Buffer.from(instruction.data.buffer, instruction.data.byteOffset, instruction.data.byteLength);
    if (program.equals(TOKEN_PROGRAM_ID)) {
      const decoded = decodeTransferChecked(accounts, data);
      if (transfer) throw new PaymentRejection('multiple-transfers');
      transfer = decoded;
    } else if (program.equals(ComputeBudgetProgram.programId)) {
      budget = addComputeBudget(budget, data);
    } else if (program.equals(MEMO_PROGRAM)) {
      // Memo accounts must sign: they would add signers outside both layouts.
      if (accounts.length > 0) throw new PaymentRejection('disallowed-instruction', 'memo with signers');
    } else if (position === 0 && isNonceAdvance(program, data)) {
      if (!allowDurableNonce) throw new PaymentRejection('durable-nonce', 'not accepted while the replay store is local');
      // AdvanceNonceAccount: nonce account, RecentBlockhashes sysvar, nonce authority.
      if (accounts.length !== 3) throw new PaymentRejection('durable-nonce', 'malformed nonce advance');
      nonce = { account: accounts[0], authority: accounts[2] };
    } else {
      throw new PaymentRejection('disallowed-instruction', program.toBase58());
    }
  }
  if (!transfer) throw new PaymentRejection('not-transfer-checked', 'no transfer');
  checkComputeBudget(budget);
  return { transfer, computeUnitPrice: budget.unitPrice, computeUnitLimit: budget.unitLimit, nonce };
}

/** One more ComputeBudget instruction: only a limit and a price within bounds, each at most once. */
export function addComputeBudget(budget: ComputeBudget, data: Buffer): ComputeBudget {
  // A repeated compute-budget instruction fails the whole transaction on chain.
  if (data[0] === SET_COMPUTE_UNIT_LIMIT && data.length === 5 && budget.unitLimit === null) {
    const unitLimit = data.readUInt32LE(1);
    if (unitLimit > MAX_COMPUTE_UNIT_LIMIT) throw new PaymentRejection('compute-budget', `limit ${unitLimit}`);
    return { ...budget, unitLimit };
  }
  if (data[0] === SET_COMPUTE_UNIT_PRICE && data.length === 9 && budget.unitPrice === null) {
    const unitPrice = data.readBigUInt64LE(1);
    if (unitPrice > MAX_COMPUTE_UNIT_PRICE) throw new PaymentRejection('compute-price', String(unitPrice));
    return { ...budget, unitPrice };
  }
  throw new PaymentRejection('compute-budget');
}

/** Once every instruction is read: a price needs an explicit limit, so price x limit bounds the priority fee. */
export function checkComputeBudget(budget: ComputeBudget): void {
  if (budget.unitPrice !== null && budget.unitLimit === null) throw new PaymentRejection('compute-budget', 'a price without a limit');
}

/** What replay protection keys on: a hash of the signed message (why not the signature: VerifiedTransfer.replayKey). */
export function replayKeyOf(messageBytes: Uint8Array): string {
  return createHash('sha256').update(messageBytes).digest('base64url');
}

function decodeTransferChecked(accounts: PublicKey[], data: Buffer): TransferChecked {
  // The decoder reads the accounts by position only; their signer and writable flags do not matter to it.
  const instruction = new TransactionInstruction({
    programId: TOKEN_PROGRAM_ID,
    keys: accounts.map((pubkey) => ({ pubkey, isSigner: false, isWritable: false })),
    data,
  });
  let decoded: ReturnType<typeof decodeTransferCheckedInstruction>;
  try {
    decoded = decodeTransferCheckedInstruction(instruction);
  } catch {
    throw new PaymentRejection('not-transfer-checked');
  }
  const { keys, data: fields } = decoded;
  // A multisig authority signs through extra accounts, which neither layout allows.
  if (keys.multiSigners.length > 0) throw new PaymentRejection('layout', 'multisig authority');
  return {
    source: keys.source.pubkey,
    mint: keys.mint.pubkey,
    destination: keys.destination.pubkey,
    authority: keys.owner.pubkey,
    amount: fields.amount,
    decimals: fields.decimals,
  };
}

// Associated token accounts of configuration (the recipient, the gateway's fee payers): a few,
// derived once each, since a derivation costs SHA-256 and curve checks per candidate bump.
const MAX_REMEMBERED_ADDRESSES = 64;
const associatedTokenAccounts = new Map<string, PublicKey>();

function associatedTokenAccount(mint: string, owner: string): PublicKey {
  const key = `${mint}/${owner}`;
  let address = associatedTokenAccounts.get(key);
  if (address === undefined) {
    if (associatedTokenAccounts.size >= MAX_REMEMBERED_ADDRESSES) associatedTokenAccounts.clear();
    address = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true);
    associatedTokenAccounts.set(key, address);
  }
  return address;
}

function isNonceAdvance(program: PublicKey, data: Buffer): boolean {
  return program.equals(SystemProgram.programId) && data.length === 4 && data.readUInt32LE(0) === ADVANCE_NONCE_ACCOUNT;
}

/** The nonce account of a verified transaction that opens with AdvanceNonceAccount, else null. */
export function durableNonceAccount(message: VersionedMessage): string | null {
  const first = message.compiledInstructions[0];
  if (!first) return null;
  const program = message.staticAccountKeys[first.programIdIndex];
  const data = Buffer.from(first.data.buffer, first.data.byteOffset, first.data.byteLength);
  if (!program || !isNonceAdvance(program, data)) return null;
  return message.staticAccountKeys[first.accountKeyIndexes[0]]?.toBase58() ?? null;
}
