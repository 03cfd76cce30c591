import { createHash, randomBytes } from 'node:crypto';
import { getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  MessageV0,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
  type AccountMeta,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { claimInstruction, depositInstruction, escrowPda, refundInstruction } from '../../../libs/escrow';
import { PaymentRejection, type PaymentRejectionReason } from '../../modules/payments/domain/exact-payment';
import type { DepositExpectations } from '../../modules/payments/ports/escrow-chain';
import { verifyEscrowDeposit } from './escrow-deposit-verifier';

const programId = Keypair.generate().publicKey;
const agent = Keypair.generate();
const provider = Keypair.generate().publicKey;
const mint = Keypair.generate().publicKey;
const serviceId = new Uint8Array(randomBytes(32));
const recentBlockhash = Keypair.generate().publicKey.toBase58();
const [escrow] = escrowPda(programId, agent.publicKey, serviceId);

const expectations: DepositExpectations = {
  programId: programId.toBase58(),
  provider: provider.toBase58(),
  mint: mint.toBase58(),
  agent: agent.publicKey.toBase58(),
  serviceId: Buffer.from(serviceId).toString('base64'),
  minimumAmount: 1_000n,
};

function deposit(overrides: { amount?: bigint; serviceId?: Uint8Array; provider?: PublicKey; mint?: PublicKey; programId?: PublicKey } = {}): TransactionInstruction {
  return depositInstruction({
    programId: overrides.programId ?? programId,
    agent: agent.publicKey,
    provider: overrides.provider ?? provider,
    mint: overrides.mint ?? mint,
    serviceId: overrides.serviceId ?? serviceId,
    amount: overrides.amount ?? 1_000n,
    expirySlot: 5_000n,
  });
}

/** The deposit with account `position` replaced (or its flags changed). */
function depositWithAccount(position: number, change: Partial<AccountMeta>): TransactionInstruction {
  const instruction = deposit();
  instruction.keys[position] = { ...instruction.keys[position], ...change };
  return instruction;
}

const budget = (price = 1n) => [ComputeBudgetProgram.setComputeUnitLimit({ units: 60_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: price })];

interface BuildOptions {
  payer?: PublicKey;
  signers?: Keypair[];
  lookupTables?: AddressLookupTableAccount[];
}

function v0(instructions: TransactionInstruction[], { payer = agent.publicKey, signers = [agent], lookupTables }: BuildOptions = {}): VersionedTransaction {
  const transaction = new VersionedTransaction(MessageV0.compile({ payerKey: payer, recentBlockhash, instructions, addressLookupTableAccounts: lookupTables }));
  transaction.sign(signers);
  return transaction;
}

function legacy(instructions: TransactionInstruction[]): string {
  const transaction = new Transaction({ feePayer: agent.publicKey, recentBlockhash }).add(...instructions);
  transaction.sign(agent);
  return transaction.serialize().toString('base64');
}

const toBase64 = (transaction: VersionedTransaction): string => Buffer.from(transaction.serialize()).toString('base64');

function verify(transaction: VersionedTransaction | string, overrides: Partial<DepositExpectations> = {}) {
  return verifyEscrowDeposit(typeof transaction === 'string' ? transaction : toBase64(transaction), { ...expectations, ...overrides }, programId);
}

function rejectionOf(transaction: VersionedTransaction | string, overrides: Partial<DepositExpectations> = {}): PaymentRejectionReason {
  try {
    verify(transaction, overrides);
  } catch (err) {
    if (err instanceof PaymentRejection) return err.reason;
    throw err;
  }
  throw new Error('the deposit was accepted');
}

describe('verifyEscrowDeposit', () => {
  it('accepts a v0 deposit of the quote, with compute budget, and reads what the escrow needs', () => {
    const transaction = v0([...budget(), deposit({ amount: 1_500n })]);
    const wire = toBase64(transaction);
    const signature = bs58.encode(transaction.signatures[0]);

    expect(verify(wire)).toEqual({
      agent: agent.publicKey.toBase58(),
      escrow: escrow.toBase58(),
      serviceId: expectations.serviceId,
      amount: 1_500n,
      expirySlot: 5_000n,
      signature,
      replayKey: createHash('sha256').update(transaction.message.serialize()).digest('base64url'),
      recentBlockhash,
      prepared: { signedTransaction: wire, signature },
    });
  });

  it('accepts a legacy deposit alone', () => {
    expect(verify(legacy([deposit()]))).toMatchObject({ amount: 1_000n, escrow: escrow.toBase58() });
  });

  describe('refuses', () => {
    const stranger = Keypair.generate();
    const withTrailingByte = () => Buffer.concat([v0([deposit()]).serialize(), Buffer.from([0])]).toString('base64');
    const unsigned = () => {
      const transaction = v0([deposit()]);
      transaction.signatures[0] = new Uint8Array(64);
      return transaction;
    };
    const signatureOfAnotherMessage = () => {
      const transaction = v0([deposit()]);
      transaction.signatures[0] = v0([deposit({ amount: 2_000n })]).signatures[0];
      return transaction;
    };
    const lookupTable = new AddressLookupTableAccount({
      key: Keypair.generate().publicKey,
      state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, authority: undefined, addresses: [provider, mint] },
    });
    const memo = new TransactionInstruction({ programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), keys: [], data: Buffer.from('hi') });

    it.each<[string, () => VersionedTransaction | string, PaymentRejectionReason]>([
      ['bytes that are not base64', () => 'not base64!', 'undecodable'],
      ['a transaction with a trailing byte', withTrailingByte, 'undecodable'],
      ['a v0 transaction with address lookup tables', () => v0([deposit()], { lookupTables: [lookupTable] }), 'lookup-tables'],
      ['another fee payer beside the agent', () => v0([deposit()], { payer: stranger.publicKey, signers: [stranger, agent] }), 'layout'],
      ['a signer other than the agent', () => v0([SystemProgram.transfer({ fromPubkey: stranger.publicKey, toPubkey: provider, lamports: 1 }), deposit()], { signers: [agent, stranger] }), 'layout'],
      ["a missing agent's signature", unsigned, 'signature'],
      ["another message's signature", signatureOfAnotherMessage, 'signature'],
      ['a memo beside the deposit', () => v0([deposit(), memo]), 'disallowed-instruction'],
      ['a System transfer beside the deposit', () => v0([deposit(), SystemProgram.transfer({ fromPubkey: agent.publicKey, toPubkey: provider, lamports: 1 })]), 'disallowed-instruction'],
      ['two deposits', () => v0([deposit(), deposit({ serviceId: new Uint8Array(randomBytes(32)) })]), 'disallowed-instruction'],
      ['a deposit followed by a refund', () => v0([deposit(), refundInstruction({ programId, agent: agent.publicKey, mint, serviceId })]), 'disallowed-instruction'],
      ['a deposit encoded for another program', () => v0([deposit({ programId: Keypair.generate().publicKey })]), 'disallowed-instruction'],
      ['only compute budget', () => v0(budget()), 'deposit-instruction'],
      ['a refund in place of the deposit', () => v0([refundInstruction({ programId, agent: agent.publicKey, mint, serviceId })]), 'deposit-instruction'],
      ['a claim in place of the deposit', () => v0([claimInstruction({ programId, agent: agent.publicKey, provider: agent.publicKey, mint, serviceId, actualAmount: 1n })]), 'deposit-instruction'],
      ['escrow instruction data that is no instruction', () => v0([new TransactionInstruction({ programId, keys: deposit().keys, data: Buffer.from([1, 2, 3]) })]), 'deposit-instruction'],
      ['a repeated compute-unit limit', () => v0([ComputeBudgetProgram.setComputeUnitLimit({ units: 1 }), ...budget(), deposit()]), 'compute-budget'],
      ['a compute-unit limit above 200,000', () => v0([ComputeBudgetProgram.setComputeUnitLimit({ units: 200_001 }), deposit()]), 'compute-budget'],
      ['a compute-unit price above 5,000,000', () => v0([...budget(5_000_001n), deposit()]), 'compute-price'],
      ['a compute-unit price without a limit', () => v0([ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1n }), deposit()]), 'compute-budget'],
      ['a deposit for another provider', () => v0([deposit({ provider: stranger.publicKey })]), 'deposit-accounts'],
      ['a deposit of another mint', () => v0([deposit({ mint: Keypair.generate().publicKey })]), 'deposit-accounts'],
      ['an escrow that is not the PDA of the service id', () => v0([depositWithAccount(3, { pubkey: Keypair.generate().publicKey })]), 'deposit-accounts'],
      ["a source other than the agent's token account", () => v0([depositWithAccount(4, { pubkey: getAssociatedTokenAddressSync(mint, stranger.publicKey) })]), 'deposit-accounts'],
      ["a vault other than the escrow's token account", () => v0([depositWithAccount(5, { pubkey: getAssociatedTokenAddressSync(mint, provider) })]), 'deposit-accounts'],
      ['Token-2022 as the token program', () => v0([depositWithAccount(6, { pubkey: TOKEN_2022_PROGRAM_ID })]), 'deposit-accounts'],
      ['another program as the associated token program', () => v0([depositWithAccount(7, { pubkey: Keypair.generate().publicKey })]), 'deposit-accounts'],
      ['another program as the system program', () => v0([depositWithAccount(8, { pubkey: Keypair.generate().publicKey })]), 'deposit-accounts'],
      ['a writable provider', () => v0([depositWithAccount(1, { isWritable: true })]), 'deposit-accounts'],
      ['a read-only vault', () => v0([depositWithAccount(5, { isWritable: false })]), 'deposit-accounts'],
      [
        'a missing account',
        () => {
          const instruction = deposit();
          instruction.keys.pop();
          return v0([instruction]);
        },
        'deposit-accounts',
      ],
      [
        'an extra account',
        () => {
          const instruction = deposit();
          instruction.keys.push({ pubkey: provider, isSigner: false, isWritable: false });
          return v0([instruction]);
        },
        'deposit-accounts',
      ],
      [
        "the agent's accounts named in another order",
        () => {
          const instruction = deposit();
          [instruction.keys[4], instruction.keys[5]] = [instruction.keys[5], instruction.keys[4]];
          return v0([instruction]);
        },
        'deposit-accounts',
      ],
      [
        "another service id (with that id's own escrow and vault)",
        () => {
          const other = new Uint8Array(randomBytes(32));
          return v0([deposit({ serviceId: other })]);
        },
        'service-id',
      ],
      ['less than the quote', () => v0([deposit({ amount: 999n })]), 'amount'],
    ])('%s', (_name, build, reason) => {
      expect(rejectionOf(build())).toBe(reason);
    });

    it('a deposit whose agent is not the payload’s', () => {
      expect(rejectionOf(v0([deposit()]), { agent: stranger.publicKey.toBase58() })).toBe('layout');
    });

    it('a deposit for a provider or mint other than the expected ones', () => {
      expect(rejectionOf(v0([deposit()]), { provider: stranger.publicKey.toBase58() })).toBe('deposit-accounts');
      expect(rejectionOf(v0([deposit()]), { mint: stranger.publicKey.toBase58() })).toBe('deposit-accounts');
    });

    it('expectations for another escrow program', () => {
      expect(rejectionOf(v0([deposit()]), { programId: stranger.publicKey.toBase58() })).toBe('deposit-instruction');
    });
  });
});
