import { ComputeBudgetInstruction, ComputeBudgetProgram, SystemProgram, TransactionInstruction, type VersionedMessage } from '@solana/web3.js';

const LAMPORTS_PER_SIGNATURE = 5000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
// Without SetComputeUnitLimit the runtime budgets per instruction: builtins (system, compute
// budget) get a small allowance, programs the default; the priority fee is charged on that limit.
const DEFAULT_UNITS_PER_BUILTIN = 3_000n;
const DEFAULT_UNITS_PER_PROGRAM = 200_000n;
const BUILTIN_PROGRAMS = [SystemProgram.programId, ComputeBudgetProgram.programId];

/** The fee LiteSVM charges for a message: 5000 lamports per signature plus the priority fee. */
export function transactionFee(message: VersionedMessage): bigint {
  let unitLimit: bigint | null = null;
  let microLamportsPerUnit = 0n;
  let defaultLimit = 0n;
  for (const compiled of message.compiledInstructions) {
    const programId = message.staticAccountKeys[compiled.programIdIndex];
    const builtin = BUILTIN_PROGRAMS.some((builtinId) => builtinId.equals(programId));
    defaultLimit += builtin ? DEFAULT_UNITS_PER_BUILTIN : DEFAULT_UNITS_PER_PROGRAM;
    if (!programId.equals(ComputeBudgetProgram.programId)) continue;
    const instruction = new TransactionInstruction({ programId, keys: [], data: Buffer.from(compiled.data) });
    const type = computeBudgetInstructionType(instruction);
    if (type === 'SetComputeUnitLimit') unitLimit = BigInt(ComputeBudgetInstruction.decodeSetComputeUnitLimit(instruction).units);
    if (type === 'SetComputeUnitPrice') {
      microLamportsPerUnit = BigInt(ComputeBudgetInstruction.decodeSetComputeUnitPrice(instruction).microLamports);
    }
  }
  const limit = unitLimit ?? (defaultLimit < MAX_COMPUTE_UNIT_LIMIT ? defaultLimit : MAX_COMPUTE_UNIT_LIMIT);
  const priorityFee = (microLamportsPerUnit * limit + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(message.header.numRequiredSignatures) + priorityFee;
}

// web3.js throws on compute-budget instructions it has no layout for (SetLoadedAccountsDataSizeLimit).
function computeBudgetInstructionType(instruction: TransactionInstruction): string | null {
  try {
    return ComputeBudgetInstruction.decodeInstructionType(instruction);
  } catch {
    return null;
  }
}
