import { PublicKey } from '@solana/web3.js';

/** A JSON-RPC error answer; the codes and texts follow the Solana validator's. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  static invalidParams(detail: string): RpcError {
    return new RpcError(-32602, `Invalid params: ${detail}`);
  }
}

export type JsonRpcId = string | number | null;

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Runs one method: returns its result or throws an RpcError. */
export type RpcHandler = (method: string, params: unknown[]) => unknown;

function errorResponse(id: JsonRpcId, error: RpcError): JsonRpcResponse {
  const body = { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) };
  return { jsonrpc: '2.0', id, error: body };
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === 'string' || typeof value === 'number';
}

function answer(request: unknown, handle: RpcHandler): JsonRpcResponse | null {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return errorResponse(null, new RpcError(-32600, 'Invalid request'));
  }
  const { jsonrpc, id, method, params } = request as Record<string, unknown>;
  const responseId = isId(id) ? id : null;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || (id !== undefined && !isId(id))) {
    return errorResponse(responseId, new RpcError(-32600, 'Invalid request'));
  }
  let response: JsonRpcResponse;
  if (params !== undefined && !Array.isArray(params)) {
    response = errorResponse(responseId, RpcError.invalidParams('expected an array of positional parameters'));
  } else {
    try {
      response = { jsonrpc: '2.0', id: responseId, result: handle(method, params ?? []) };
    } catch (err) {
      const error = err instanceof RpcError ? err : new RpcError(-32603, `Internal error: ${(err as Error).message}`);
      response = errorResponse(responseId, error);
    }
  }
  return id === undefined ? null : response; // a notification gets no answer
}

/** Answers a JSON-RPC text: a single request or a batch. Null when nothing is to be sent back. */
export function answerJsonRpc(text: string, handle: RpcHandler): JsonRpcResponse | JsonRpcResponse[] | null {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return errorResponse(null, new RpcError(-32700, 'Parse error'));
  }
  if (!Array.isArray(payload)) return answer(payload, handle);
  if (payload.length === 0) return errorResponse(null, new RpcError(-32600, 'Invalid request'));
  const answers = payload.map((request) => answer(request, handle)).filter((item) => item !== null);
  return answers.length > 0 ? answers : null;
}

// Positional parameter readers: each throws the validator's "Invalid params" error on a bad value.

export function stringParam(params: unknown[], index: number, name: string): string {
  const value = params[index];
  if (typeof value !== 'string') throw RpcError.invalidParams(`${name} must be a string`);
  return value;
}

export function publicKeyParam(params: unknown[], index: number): PublicKey {
  const value = stringParam(params, index, 'address');
  try {
    return new PublicKey(value);
  } catch {
    throw new RpcError(-32602, 'Invalid param: Invalid');
  }
}

/** An optional object (a config, or an object inside one); absent means empty. */
export function objectValue(value: unknown, name: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw RpcError.invalidParams(`${name} must be an object`);
  return value as Record<string, unknown>;
}

export function configParam(params: unknown[], index: number): Record<string, unknown> {
  return objectValue(params[index], 'configuration');
}

export function integerParam(params: unknown[], index: number, name: string): number {
  const value = params[index];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw RpcError.invalidParams(`${name} must be a non-negative integer`);
  }
  return value;
}

/** A string option from a config object, limited to the given choices. */
export function choiceOption<T extends string>(config: Record<string, unknown>, key: string, choices: readonly T[], fallback: T): T {
  const value = config[key] ?? fallback;
  if (typeof value !== 'string' || !choices.includes(value as T)) {
    throw RpcError.invalidParams(`unsupported ${key} ${JSON.stringify(value)}; expected one of ${choices.join(', ')}`);
  }
  return value as T;
}
