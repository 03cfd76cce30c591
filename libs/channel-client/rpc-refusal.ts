import { isJsonObject } from '../json/json-object';

const DIGITS = /^[0-9]+$/;

/** A2A's refusal of a voucher: why (`data.reason`, the REST error code) and the channel's `last_cumulative`. */
export interface RpcRefusal {
  readonly reason: string | undefined;
  readonly lastCumulative: bigint | undefined;
}

/**
 * The JSON-RPC error in what an A2A client threw or returned: the error object itself, a response
 * holding it (`{error}`), or an exception carrying that response (`@a2a-js/sdk`'s `errorResponse`).
 */
export function readRpcRefusal(thrown: unknown): RpcRefusal | null {
  const holder = isJsonObject(thrown) || thrown instanceof Error ? (thrown as Record<string, unknown>) : null;
  const response = holder && isJsonObject(holder.errorResponse) ? holder.errorResponse : holder;
  const error = response && isJsonObject(response.error) ? response.error : response;
  const data = error && isJsonObject(error.data) ? error.data : null;
  if (data === null) return null;
  const last = data.last_cumulative;
  return {
    reason: typeof data.reason === 'string' ? data.reason : undefined,
    lastCumulative: typeof last === 'string' && DIGITS.test(last) ? BigInt(last) : undefined,
  };
}
