/** The JSON-RPC error codes of the A2A surface (spec 7), answered with HTTP 200 in a JSON-RPC error envelope. */
export const A2A_ERRORS = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotSupported: -32003,
  paymentFailed: -32007,
  providerError: -32008,
  modelNotFound: -32009,
} as const;

export type A2AErrorCode = (typeof A2A_ERRORS)[keyof typeof A2A_ERRORS];

/** Why a task refused a trigger: the JSON-RPC error the caller answers with. */
export interface A2ARefusal {
  code: A2AErrorCode;
  message: string;
}

/** An A2A failure carrying its JSON-RPC code; `data` is sent as the error's `data` member (e.g. `{last_cumulative}`). */
export class A2AError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'A2AError';
  }

  static from(refusal: A2ARefusal): A2AError {
    return new A2AError(refusal.code, refusal.message);
  }
}
