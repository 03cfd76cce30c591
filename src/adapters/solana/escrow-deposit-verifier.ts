import { ASSOCIATED_TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { ComputeBudgetProgram, PublicKey, SystemProgram, type VersionedMessage } from '@solana/web3.js';
import bs58 from 'bs58';
import { decodeEscrowInstruction, escrowPda, type EscrowInstruction } from '../../../libs/escrow';
import { PaymentRejection } from '../../modules/payments/domain/exact-payment';
import type { DepositExpectations, VerifiedDeposit } from '../../modules/payments/ports/escrow-chain';
import { addComputeBudget, checkComputeBudget, replayKeyOf, type ComputeBudget } from './exact-transfer-verifier';
import { decodePaymentTransaction } from './payment-transaction-wire';
import { strictEd25519Valid } from '../../../libs/ed25519';

type Deposit = Extract<EscrowInstruction, { kind: 'deposit' }>;

interface DepositCall {
  deposit: Deposit;
  /** Indexes into the message's static keys, in the instruction's order. */
  accountIndexes: number[];
}

/**
 * Every check of an escrow deposit transaction that needs no chain: the agent is its fee payer and
 * only signer, and signed; besides compute budget it holds one instruction, a deposit of at least
 * the quote to the escrow program, on the accounts that deposit must name (so the funds can only go
 * to the PDA of the payload's service id, claimable by our provider), with the payload's service id.
 * Whether its expiry suits us and the escrow is new need the chain. Throws PaymentRejection.
 */
export function verifyEscrowDeposit(transactionBase64: string, expectations: DepositExpectations, programId: PublicKey): VerifiedDeposit {
  if (expectations.programId !== programId.toBase58()) throw new PaymentRejection('deposit-instruction', 'another escrow program');
  const { transaction, messageBytes } = decodePaymentTransaction(transactionBase64);
  const { message } = transaction;
  if (message.addressTableLookups.length > 0) throw new PaymentRejection('lookup-tables');
  // The agent pays the fee and the rents, and signs alone: no other key can be made to pay or act.
  const agent = message.staticAccountKeys[0];
  if (message.header.numRequiredSignatures !== 1 || agent?.toBase58() !== expectations.agent) {
    throw new PaymentRejection('layout', `${message.header.numRequiredSignatures} signers`);
  }
  const { deposit, accountIndexes } = readInstructions(message, programId);

  const [escrow] = escrowPda(programId, agent, deposit.serviceId);
  checkAccounts(message, accountIndexes, expectedAccounts(agent, escrow, expectations));
  const serviceId = Buffer.from(deposit.serviceId).toString('base64');
  if (serviceId !== expectations.serviceId) throw new PaymentRejection('service-id');
  if (deposit.amount < expectations.minimumAmount) throw new PaymentRejection('amount', `${deposit.amount} < ${expectations.minimumAmount}`);

  const agentSignature = transaction.signatures[0];
  if (!strictEd25519Valid(agent.toBytes(), messageBytes, agentSignature)) throw new PaymentRejection('signature');
  const signature = bs58.encode(agentSignature);
  return {
    agent: expectations.agent,
    escrow: escrow.toBase58(),
    serviceId,
    amount: deposit.amount,
    expirySlot: deposit.expirySlot,
    signature,
    replayKey: replayKeyOf(messageBytes),
    recentBlockhash: message.recentBlockhash,
    prepared: { signedTransaction: transactionBase64, signature },
  };
}

/** At most one compute-unit limit and price, and exactly one escrow instruction, a deposit. */
function readInstructions(message: VersionedMessage, programId: PublicKey): DepositCall {
  const keys = message.staticAccountKeys;
  const keyAt = (index: number): PublicKey => {
    const key = keys[index];
    if (key === undefined) throw new PaymentRejection('undecodable', 'account index outside the message');
    return key;
  };
  let budget: ComputeBudget = { unitLimit: null, unitPrice: null };
  let call: DepositCall | null = null;
  for (const instruction of message.compiledInstructions) {
    const program = keyAt(instruction.programIdIndex);
    instruction.accountKeyIndexes.forEach(keyAt);
    const data = Buffer.from(instruction.data.buffer, instruction.data.byteOffset, instruction.data.byteLength);
    if (program.equals(ComputeBudgetProgram.programId)) {
      budget = addComputeBudget(budget, data);
    } else if (program.equals(programId)) {
      // A second escrow instruction could claim or refund what the first deposits, or deposit twice.
      if (call) throw new PaymentRejection('disallowed-instruction', 'a second escrow instruction');
      const decoded = decodeEscrowInstruction({ data });
      if (decoded?.kind !== 'deposit') throw new PaymentRejection('deposit-instruction', decoded ? decoded.kind : 'unknown instruction');
      call = { deposit: decoded, accountIndexes: instruction.accountKeyIndexes };
    } else {
      throw new PaymentRejection('disallowed-instruction', program.toBase58());
    }
  }
  if (!call) throw new PaymentRejection('deposit-instruction', 'no escrow instruction');
  checkComputeBudget(budget);
  return call;
}

interface ExpectedAccount {
  key: PublicKey;
  signer: boolean;
  writable: boolean;
}

/** The deposit's accounts as `depositInstruction` (libs/escrow) lays them out for this agent, escrow and mint. */
function expectedAccounts(agent: PublicKey, escrow: PublicKey, expectations: DepositExpectations): ExpectedAccount[] {
  const mint = new PublicKey(expectations.mint);
  const account = (key: PublicKey, writable: boolean, signer = false): ExpectedAccount => ({ key, signer, writable });
  return [
    account(agent, true, true),
    account(new PublicKey(expectations.provider), false),
    account(mint, false),
    account(escrow, true),
    account(getAssociatedTokenAddressSync(mint, agent, true), true),
    // The escrow is a PDA, off the curve.
    account(getAssociatedTokenAddressSync(mint, escrow, true), true),
    account(TOKEN_PROGRAM_ID, false),
    account(ASSOCIATED_TOKEN_PROGRAM_ID, false),
    account(SystemProgram.programId, false),
  ];
}

function checkAccounts(message: VersionedMessage, indexes: readonly number[], expected: readonly ExpectedAccount[]): void {
  if (indexes.length !== expected.length) throw new PaymentRejection('deposit-accounts', `${indexes.length} accounts`);
  expected.forEach(({ key, signer, writable }, position) => {
    const index = indexes[position];
    // The flags are the message's, per account: exactly those of the deposit, so no account is writable without cause.
    const matches = message.staticAccountKeys[index].equals(key) && message.isAccountSigner(index) === signer && message.isAccountWritable(index) === writable;
    if (!matches) throw new PaymentRejection('deposit-accounts', `account #${position}`);
  });
}
