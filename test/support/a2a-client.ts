import type { Message, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader, toHeaderForm, type PaymentRequiredBody } from '../../libs/x402';
import type { RunningGateway } from '../../src/gateway';
import { PAID_MODEL, specPaymentHeader, type PaidWorld, type SpecPayment } from './paid-gateway';

/** One JSON-RPC 2.0 call to POST /a2a, as a spec-form client sends it. */
export async function a2aCall(gateway: RunningGateway, method: string, params: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: A2AResponse }> {
  const res = await fetch(`${gateway.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as A2AResponse };
}

export interface A2ATaskBody {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: Array<{ kind: string; text: string }>; metadata?: Record<string, unknown> } };
  artifacts?: Array<{ parts: Array<{ kind: string; text: string }> }>;
}

export interface A2AResponse {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: A2ATaskBody;
  error?: { code: number; message: string; data?: unknown };
}

/** A user message in the spec's shape. */
export function userMessage(text: string, metadata: Record<string, unknown> = {}, taskId?: string): Record<string, unknown> {
  return { message: { kind: 'message', messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'user', parts: [{ kind: 'text', text }], metadata, ...(taskId ? { taskId } : {}) } };
}

/** A spec-form payment (plain JSON, snake_case) of a task's stored quote, signed by the world's payer unless told otherwise. */
export function a2aPaymentPayload(world: PaidWorld, required: PaymentRequiredBody, options: SpecPayment = {}): unknown {
  const header = decodePaymentRequiredHeader(encodePaymentRequiredHeader(toHeaderForm(required)));
  return JSON.parse(Buffer.from(specPaymentHeader(world, header, options), 'base64').toString()) as unknown;
}

/**
 * The two steps of a paid task through the official `@a2a-js/sdk` client: the quote of "Say hello"
 * (a new task, input-required) and a payment of it in `x402.payment.payload`.
 */
export function sdkTasks(client: Client) {
  const message = (metadata: Record<string, unknown>, taskId?: string) => userMessage('Say hello', metadata, taskId).message as Message;
  return {
    quote: async (maxTokens = 50): Promise<Task> => (await client.sendMessage({ message: message({ model: PAID_MODEL, max_tokens: maxTokens }) })) as Task,
    pay: async (taskId: string, payload: unknown): Promise<Task> =>
      (await client.sendMessage({ message: message({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, taskId) })) as Task,
  };
}
