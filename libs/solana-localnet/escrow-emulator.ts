import { createPublicKey, verify } from 'node:crypto';
import { ComputeBudgetInstruction, ComputeBudgetProgram, SystemProgram, TransactionInstruction, type MessageAccountKeys, type PublicKey, type VersionedTransaction } from '@solana/web3.js';
import type { AccountInfoBytes, LiteSVM } from 'litesvm';
import { AccountOverlay, closedAccount } from './account-overlay';
import type { ExecutionResult } from './execution-result';
import { FAILED_INSTRUCTION_UNITS, runEscrowProgram, type InstructionAccount } from './escrow-program';
import { InstructionFailure, ProgramRuntime } from './escrow-runtime';
import type { TransactionErrorJson } from './transaction-errors';
import { transactionFee } from './transaction-fee';

export interface EmulationChecks {
  sigVerify: boolean;
  /** Whether the recent blockhash is one the chain accepts. */
  blockhashValid: boolean;
  /** Whether the first signature already landed (replay); simulations pass false. */
  alreadyProcessed: boolean;
}

export interface EmulatedTransaction {
  execution: ExecutionResult;
  /** False when the transaction was turned away before execution (signatures, blockhash, fee payer, compute budget): it must not land. */
  landed: boolean;
  /** The transaction's accounts as it leaves them, by base58 address; a closed account reads as 0 lamports. */
  postAccounts: Map<string, AccountInfoBytes>;
  /** The accounts to write when it lands: the fee payer's debit, and the instruction's effects if it succeeded. */
  writes: Array<{ address: PublicKey; info: AccountInfoBytes | null }>;
}

const COMPUTE_BUDGET_UNITS = 150;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
const DEFAULT_UNITS_PER_PROGRAM = 200_000;
const DEFAULT_UNITS_PER_BUILTIN = 3_000;
// Ed25519 public keys wrapped as SubjectPublicKeyInfo, the form node:crypto takes.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Runs transactions that call the escrow program, which LiteSVM cannot execute here (no program
 * binary can be built on this machine), with the checks the runtime makes around any transaction:
 * signatures, blockhash, replay, fee payer and fee (transaction-fee.ts), compute budget, and the
 * rent state of every account it changes. The whole new state is computed before anything is
 * written, so a transaction lands entirely or (beyond its fee) not at all.
 *
 * Besides one escrow instruction a transaction may hold only ComputeBudget instructions: anything
 * else is refused before execution rather than run half here and half in LiteSVM.
 */
export class EscrowEmulator {
  constructor(
    readonly programId: PublicKey,
    private readonly svm: LiteSVM,
  ) {}

  involves(transaction: VersionedTransaction): boolean {
    const { message } = transaction;
    return message.compiledInstructions.some((instruction) => message.staticAccountKeys[instruction.programIdIndex]?.equals(this.programId));
  }

  run(transaction: VersionedTransaction, keys: MessageAccountKeys, checks: EmulationChecks): EmulatedTransaction {
    const { message } = transaction;
    const state = new AccountOverlay((address) => this.svm.getAccount(address));
    const all = keys.keySegments().flat();
    const refuse = (err: TransactionErrorJson, logs: string[] = []): EmulatedTransaction => ({
      execution: { err, logs, unitsConsumed: 0, returnData: null, innerInstructions: [] },
      landed: false,
      postAccounts: new Map(),
      writes: [],
    });

    if (transaction.signatures.length !== message.header.numRequiredSignatures) return refuse('SanitizeFailure');
    if (message.addressTableLookups.length > 0 && !keys.accountKeysFromLookups) return refuse('AddressLookupTableNotFound');
    if (checks.sigVerify && !this.signaturesValid(transaction)) return refuse('SignatureFailure');
    if (!checks.blockhashValid) return refuse('BlockhashNotFound');
    if (checks.alreadyProcessed) return refuse('AlreadyProcessed');

    const plan = this.plan(transaction);
    if ('refused' in plan) return refuse(plan.refused, plan.logs);

    const feePayer = all[0];
    const payer = state.get(feePayer);
    const fee = transactionFee(message);
    if (!payer) return refuse('AccountNotFound');
    if (!payer.owner.equals(SystemProgram.programId) || payer.data.length > 0) return refuse('InvalidAccountForFee');
    if (BigInt(payer.lamports) < fee) return refuse('InsufficientFundsForFee');
    const left = BigInt(payer.lamports) - fee;
    if (left > 0n && left < this.rentExempt(0)) return refuse({ InsufficientFundsForRent: { account_index: 0 } });
    state.set(feePayer, { ...payer, lamports: Number(left) });

    const logs: string[] = [];
    let units = 0;
    let err: TransactionErrorJson | null = null;
    let inner: ExecutionResult['innerInstructions'] = [];
    for (const [index, compiled] of message.compiledInstructions.entries()) {
      const programId = message.staticAccountKeys[compiled.programIdIndex];
      logs.push(`Program ${programId.toBase58()} invoke [1]`);
      if (!programId.equals(this.programId)) {
        units += COMPUTE_BUDGET_UNITS;
        logs.push(`Program ${programId.toBase58()} success`);
        continue;
      }
      const layer = state.fork();
      const runtime = new ProgramRuntime(
        layer,
        (address) => all.findIndex((key) => key.equals(address)),
        (size) => this.rentExempt(size),
      );
      const budget = plan.unitLimit - units;
      const accounts: InstructionAccount[] = compiled.accountKeyIndexes.map((keyIndex) => ({
        address: all[keyIndex],
        isSigner: message.isAccountSigner(keyIndex),
        isWritable: message.isAccountWritable(keyIndex),
      }));
      let consumed: number = FAILED_INSTRUCTION_UNITS;
      let failure: InstructionFailure | null = null;
      try {
        consumed = runEscrowProgram(runtime, { programId, accounts, data: compiled.data, slot: this.svm.getClock().slot });
        if (consumed > budget) throw new InstructionFailure('ComputationalBudgetExceeded');
      } catch (thrown) {
        if (!(thrown instanceof InstructionFailure)) throw thrown;
        failure = thrown;
      }
      consumed = Math.min(consumed, budget);
      units += consumed;
      if (runtime.inner.length > 0) inner = [{ index, instructions: runtime.inner }];
      logs.push(...runtime.logs, `Program ${programId.toBase58()} consumed ${consumed} of ${budget} compute units`);
      if (failure) {
        const reason = failure.detail === 'ComputationalBudgetExceeded' ? 'Computational budget exceeded' : failure.message;
        logs.push(`Program ${programId.toBase58()} failed: ${reason}`);
        err = { InstructionError: [index, failure.detail] };
        break;
      }
      logs.push(`Program ${programId.toBase58()} success`);
      // The runtime checks rent states after the instruction ran: its logs show success, the transaction still fails.
      const rentViolation = this.rentViolation(layer, state, all);
      if (rentViolation !== null) {
        err = { InsufficientFundsForRent: { account_index: rentViolation } };
        break;
      }
      state.merge(layer);
    }

    const postAccounts = new Map(all.map((address) => [address.toBase58(), state.get(address) ?? closedAccount()]));
    return { execution: { err, logs, unitsConsumed: units, returnData: null, innerInstructions: inner }, landed: true, postAccounts, writes: state.changes() };
  }

  private signaturesValid(transaction: VersionedTransaction): boolean {
    const signed = Buffer.from(transaction.message.serialize());
    return transaction.signatures.every((signature, index) => {
      const signer = transaction.message.staticAccountKeys[index];
      if (!signer) return false;
      const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, signer.toBuffer()]), format: 'der', type: 'spki' });
      return verify(null, signed, key, signature);
    });
  }

  /** Checks the instruction mix and reads the compute budget, before any fee is charged (as the runtime's sanitising does). */
  private plan(transaction: VersionedTransaction): { unitLimit: number } | { refused: TransactionErrorJson; logs: string[] } {
    const { message } = transaction;
    let escrowCalls = 0;
    let unitLimit: number | null = null;
    let defaultLimit = 0;
    const seen = new Set<string>();
    for (const [index, compiled] of message.compiledInstructions.entries()) {
      const programId = message.staticAccountKeys[compiled.programIdIndex];
      if (programId.equals(this.programId)) {
        escrowCalls += 1;
        defaultLimit += DEFAULT_UNITS_PER_PROGRAM;
        if (escrowCalls === 1) continue;
      }
      if (!programId.equals(ComputeBudgetProgram.programId) || escrowCalls > 1) {
        return {
          refused: { InstructionError: [index, 'UnsupportedProgramId'] },
          logs: [`Escrow emulator: a transaction calling ${this.programId.toBase58()} may hold one escrow instruction and ComputeBudget instructions only`],
        };
      }
      defaultLimit += DEFAULT_UNITS_PER_BUILTIN;
      const instruction = new TransactionInstruction({ programId, keys: [], data: Buffer.from(compiled.data) });
      let type: string;
      try {
        type = ComputeBudgetInstruction.decodeInstructionType(instruction);
      } catch {
        type = compiled.data[0] === 4 && compiled.data.length === 5 ? 'SetLoadedAccountsDataSizeLimit' : '';
      }
      if (!type) return { refused: { InstructionError: [index, 'InvalidInstructionData'] }, logs: [] };
      if (seen.has(type)) return { refused: { DuplicateInstruction: index }, logs: [] };
      seen.add(type);
      if (type === 'SetComputeUnitLimit') unitLimit = ComputeBudgetInstruction.decodeSetComputeUnitLimit(instruction).units;
    }
    return { unitLimit: Math.min(unitLimit ?? defaultLimit, MAX_COMPUTE_UNIT_LIMIT) };
  }

  /**
   * The runtime's rent-state rule for the accounts an instruction changed: none may end with
   * lamports below its rent-exempt minimum unless it holds none. Returns the offending account index.
   */
  private rentViolation(layer: AccountOverlay, before: AccountOverlay, keys: PublicKey[]): number | null {
    for (const { address, info } of layer.changes()) {
      if (!info) continue;
      const previous = before.get(address);
      const exempt = BigInt(info.lamports) >= this.rentExempt(info.data.length);
      // An account already short of rent may stay so as long as it neither grows nor gains lamports.
      const unchangedRentPaying =
        previous !== null && previous.data.length === info.data.length && info.lamports <= previous.lamports && BigInt(previous.lamports) < this.rentExempt(previous.data.length);
      if (!exempt && !unchangedRentPaying) return keys.findIndex((key) => key.equals(address));
    }
    return null;
  }

  private rentExempt(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }
}
