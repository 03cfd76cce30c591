const U64_MAX = (1n << 64n) - 1n;

export function checkU64(value: bigint, name: string): bigint {
  if (value < 0n || value > U64_MAX) throw new RangeError(`${name} must fit in a u64, got ${value}`);
  return value;
}
