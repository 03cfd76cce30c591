import { Connection, type FetchFn } from '@solana/web3.js';

/**
 * A web3.js JSON-RPC connection whose HTTP calls are bounded in time and always settle.
 * web3.js only reports a failed fetch when the error is `instanceof Error` of its own realm; any
 * other rejection (undici's errors under a sandboxed runtime such as Jest, a thrown string) is
 * swallowed and the call never settles. Every failure is therefore re-thrown here as a local Error.
 */
export function createRpcConnection(rpcUrl: string, timeoutMs: number): Connection {
  const boundedFetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    try {
      return await fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const reason = err as { name?: unknown; message?: unknown; cause?: unknown };
      throw new Error(`solana rpc request failed: ${String(reason?.message ?? err)}`, { cause: reason?.cause ?? err });
    }
  };
  return new Connection(rpcUrl, { disableRetryOnRateLimit: true, fetch: boundedFetch as unknown as FetchFn });
}
