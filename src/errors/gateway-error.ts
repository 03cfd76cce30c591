import { ERROR_CODES, type ErrorCode } from './error-codes';
import type { ErrorType } from './error-type';

export interface GatewayErrorOptions extends ErrorOptions {
  /** The request field at fault, as OpenAI's envelope names it in `error.param` (`messages[3].content`, `days`). */
  readonly param?: string;
  /** Fields the envelope carries beside the usual ones (a channel refusal's `last_cumulative`). */
  readonly details?: Readonly<Record<string, string>>;
}

/**
 * `code` names the failure for programs (the catalogue in error-codes.ts) and fixes the type;
 * `message` is what a person reads; `param` the field at fault when one is; `options.cause`
 * (ES2022) keeps what led to it, such as an upstream's refusal, for logs only: the envelope never
 * shows it.
 */
export class GatewayError extends Error {
  readonly type: ErrorType;
  readonly param: string | null;
  readonly details: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Response headers that belong to this error (a 429's rate-limit headers). */
    readonly headers: Readonly<Record<string, string>> = {},
    options?: GatewayErrorOptions,
  ) {
    super(message, options);
    this.type = ERROR_CODES[code].type;
    this.param = options?.param ?? null;
    this.details = options?.details ?? {};
    this.name = 'GatewayError';
  }
}

/** A request refused because of one field, which the envelope names in `param`. */
export function fieldError(code: ErrorCode, param: string, message: string): GatewayError {
  return new GatewayError(code, message, {}, { param });
}
