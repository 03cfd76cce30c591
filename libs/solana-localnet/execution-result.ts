import bs58 from 'bs58';
import type { TransactionMetadata } from 'litesvm';
import type { TransactionErrorJson } from './transaction-errors';

/** An inner (CPI) instruction in Solana's compiled JSON form. */
export interface CompiledInnerInstructionJson {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number;
}

export interface InnerInstructionsJson {
  index: number;
  instructions: CompiledInnerInstructionJson[];
}

export interface ReturnDataJson {
  programId: string;
  data: [string, 'base64'];
}

/** What running a transaction produced, successful or not. */
export interface ExecutionResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
  returnData: ReturnDataJson | null;
  innerInstructions: InnerInstructionsJson[];
}

export function executionResult(meta: TransactionMetadata, err: TransactionErrorJson | null): ExecutionResult {
  const returnData = meta.returnData();
  return {
    err,
    logs: meta.logs(),
    unitsConsumed: Number(meta.computeUnitsConsumed()),
    // Solana reports no return data rather than an empty one.
    returnData: returnData.data().length > 0 ? { programId: bs58.encode(returnData.programId()), data: [Buffer.from(returnData.data()).toString('base64'), 'base64'] } : null,
    innerInstructions: meta
      .innerInstructions()
      .map((inner, index) => ({
        index,
        instructions: inner.map((item) => {
          const instruction = item.instruction();
          return {
            programIdIndex: instruction.programIdIndex(),
            accounts: [...instruction.accounts()],
            data: bs58.encode(instruction.data()),
            stackHeight: item.stackHeight(),
          };
        }),
      }))
      .filter((entry) => entry.instructions.length > 0),
  };
}
