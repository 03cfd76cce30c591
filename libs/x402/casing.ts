import { isDeepStrictEqual } from 'node:util';

/** The two spellings of x402 field names: our spec's snake_case and the x402 standard camelCase. */
export type Casing = 'snake' | 'camel';

/** `maxTimeoutSeconds` -> `max_timeout_seconds`; `x402Version` -> `x402_version`. */
export function toSnake(camelName: string): string {
  return camelName.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export function toCamel(snakeName: string): string {
  return snakeName.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** Whether a name fits `casing`: snake_case names have no capitals, camelCase names no underscores; one-word names fit both. */
export function isSpeltIn(casing: Casing, name: string): boolean {
  return casing === 'snake' ? !/[A-Z]/.test(name) : !name.includes('_');
}

/** The same record with its own keys spelt in `casing` (values untouched). */
export function recase(fields: object, casing: Casing): Record<string, unknown> {
  const spell = casing === 'snake' ? toSnake : toCamel;
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [spell(name), value]));
}

/** The same record with every field under both spellings (a one-word name once): readable by a client of either casing. */
export function inBothCasings(fields: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).flatMap(([name, value]) => [...new Set([toSnake(name), toCamel(name)])].map((spelt) => [spelt, value])));
}

/**
 * The record with its own keys spelt in `casing`, each field read from whichever spelling the
 * sender used; null when a field is spelt both ways with different values (which one was meant is
 * unknowable).
 */
export function inOneCasing(fields: object, casing: Casing): Record<string, unknown> | null {
  const spell = casing === 'snake' ? toSnake : toCamel;
  const read: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const spelt = spell(name);
    if (Object.hasOwn(read, spelt) && !isDeepStrictEqual(read[spelt], value)) return null;
    read[spelt] = value;
  }
  return read;
}
