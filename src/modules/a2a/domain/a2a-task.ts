import { randomBytes } from 'node:crypto';
import type { TaskState } from './task-state';

/** An A2A task as stored (spec 2.13, 3.1): everything needed to answer tasks/get and to pay it later. */
export interface A2ATaskRecord {
  /** 'a2a_' + 32 hex chars (crypto random), opaque to clients. */
  id: string;
  contextId: string;
  state: TaskState;
  /** The requested model or profile (default 'auto'), the user's text and the completion cap that priced the quote. */
  request: { model: string; text: string; maxTokens: number | null };
  /** The stored offer: the PaymentRequired body (the 402's snake_case JSON with the camelCase fields beside them) and its quoted amount. */
  offer: { paymentRequired: Record<string, unknown>; amountAtomic: string };
  /** Set once paid: the receipts of spec 2.13 (`{tx_signature, receipt?}`); a completed task's add x402's `SettleResponse` fields. */
  receipts: A2AReceipt[];
  /** The answer text once completed. */
  output: string | null;
  /** Why it failed (shown in the status message), null otherwise. */
  failure: string | null;
  /** Epoch ms of the last state change. */
  updatedAt: number;
}

export interface A2AReceipt {
  tx_signature: string;
  receipt?: string;
  success?: true;
  transaction?: string;
  network?: string;
}

const TASK_ID = /^a2a_[0-9a-f]{32}$/;

/** A fresh task id: 128 random bits, so ids can be neither guessed nor enumerated. */
export function newTaskId(): string {
  return `a2a_${randomBytes(16).toString('hex')}`;
}

/** Whether `value` has the shape of an id this gateway issues: anything else names no task (-32001) without asking the store. */
export function isTaskId(value: unknown): value is string {
  return typeof value === 'string' && TASK_ID.test(value);
}
