import { isJsonObject } from '../../../../libs/json/json-object';
import { A2A_ERRORS, A2AError } from './a2a-errors';
import type { A2ATaskRecord } from './a2a-task';

/** The x402 extension of A2A and the AP2 merchant extension (spec 2.13), as the card declares them and `x-a2a-extensions` names them. */
export const X402_EXTENSION_URI = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2';
export const AP2_EXTENSION_URI = 'https://github.com/google-agentic-commerce/ap2/tree/v0.1';

/** Spec 2.13's metadata keys. */
export const PAYMENT_STATUS = 'x402.payment.status';
export const PAYMENT_REQUIRED = 'x402.payment.required';
export const PAYMENT_PAYLOAD = 'x402.payment.payload';
export const PAYMENT_RECEIPTS = 'x402.payment.receipts';

/**
 * The longest user text one task carries. A quote costs its client nothing and is kept for the
 * task's TTL, so it is bounded well below chat's 10 MB body (docs/decisions.md, "A2A").
 */
const MAX_TEXT_CHARACTERS = 100_000;

/** What a `message/send` asks: its text, the model (default `auto`), the completion cap, and its metadata. */
export interface UserMessage {
  text: string;
  model: string;
  maxTokens: number | null;
  metadata: Record<string, unknown>;
}

export interface TextPartView {
  kind: 'text';
  text: string;
}

/** A2A 0.3.0's Task, as projected by state (spec 4.8, tasks/get). */
export interface TaskView {
  kind: 'task';
  id: string;
  contextId: string;
  status: { state: A2ATaskRecord['state']; message?: AgentMessage; timestamp: string };
  artifacts?: Array<{ artifactId: string; name: string; parts: TextPartView[] }>;
}

interface AgentMessage {
  kind: 'message';
  messageId: string;
  role: 'agent';
  parts: TextPartView[];
  taskId: string;
  contextId: string;
  metadata?: Record<string, unknown>;
}

/** Spec 2.13: text only. An image part is invalid params; so is a message without text. */
export function parseUserMessage(params: unknown): UserMessage {
  if (!isJsonObject(params) || !isJsonObject(params.message)) throw invalid('params.message must be an object');
  const { parts, metadata } = params.message;
  if (!Array.isArray(parts) || parts.length === 0) throw invalid('message.parts must be a non-empty array');
  const texts: string[] = [];
  for (const part of parts) {
    if (!isJsonObject(part)) throw invalid('every message part must be an object');
    if (isImage(part)) throw invalid('image parts are not accepted: the A2A surface is text only');
    if (part.kind === 'text' && typeof part.text === 'string') texts.push(part.text);
  }
  const text = texts.join('\n');
  if (text.trim() === '') throw invalid('the message needs a text part');
  if (text.length > MAX_TEXT_CHARACTERS) throw invalid(`the message text is longer than ${MAX_TEXT_CHARACTERS} characters`);
  const meta = isJsonObject(metadata) ? metadata : {};
  const model = meta.model === undefined ? 'auto' : meta.model;
  if (typeof model !== 'string' || model.length === 0 || model.length > 200) throw invalid('metadata.model must be a model id, alias or profile');
  const maxTokens = meta.max_tokens ?? null;
  if (maxTokens !== null && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)) throw invalid('metadata.max_tokens must be a positive integer');
  return { text, model, maxTokens, metadata: meta };
}

/** A file or data part whose content type is an image (spec 2.13's "contentType starting image/"), in any of the spellings clients use. */
function isImage(part: Record<string, unknown>): boolean {
  const file = isJsonObject(part.file) ? part.file : {};
  const types = [part.contentType, part.mimeType, part.mediaType, file.mimeType, file.contentType, file.mediaType];
  return types.some((type) => typeof type === 'string' && type.toLowerCase().startsWith('image/'));
}

/** Spec 4.8 tasks/get: the quote while input-required, status alone while working or canceled, the answer and receipts once completed, the receipts once failed. */
export function taskView(task: A2ATaskRecord): TaskView {
  const timestamp = new Date(task.updatedAt).toISOString();
  const message = (text: string, metadata?: Record<string, unknown>): AgentMessage => ({
    kind: 'message',
    messageId: `${task.id}-${task.state}`,
    role: 'agent',
    parts: [{ kind: 'text', text }],
    taskId: task.id,
    contextId: task.contextId,
    ...(metadata ? { metadata } : {}),
  });
  const base = { kind: 'task' as const, id: task.id, contextId: task.contextId };
  switch (task.state) {
    case 'input-required':
      return { ...base, status: { state: task.state, timestamp, message: message('Payment required', { [PAYMENT_STATUS]: 'payment-required', [PAYMENT_REQUIRED]: task.offer.paymentRequired }) } };
    case 'working':
    case 'canceled':
      return { ...base, status: { state: task.state, timestamp } };
    case 'completed':
      return {
        ...base,
        // Every paid task holds a receipt but a draw that lost its race with a close, which took nothing: no payment status (spec 3.1).
        status: {
          state: task.state,
          timestamp,
          message: message(task.output ?? '', task.receipts.length > 0 ? { [PAYMENT_STATUS]: 'payment-completed', [PAYMENT_RECEIPTS]: task.receipts } : undefined),
        },
        artifacts: [{ artifactId: `${task.id}-answer`, name: 'answer', parts: [{ kind: 'text', text: task.output ?? '' }] }],
      };
    case 'failed':
      return { ...base, status: { state: task.state, timestamp, message: message(task.failure ?? 'failed', { [PAYMENT_STATUS]: 'payment-completed', [PAYMENT_RECEIPTS]: task.receipts }) } };
  }
}

function invalid(message: string): A2AError {
  return new A2AError(A2A_ERRORS.invalidParams, message);
}
