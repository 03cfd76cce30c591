/** A CAIP-2 chain id, `solana:<genesis hash>`: the same template type as x402's `Network`. */
export type Network = `${string}:${string}`;

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

export function isNetwork(value: unknown): value is Network {
  return typeof value === 'string' && CAIP2.test(value);
}
