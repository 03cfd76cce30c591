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
