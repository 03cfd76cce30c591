import bs58 from 'bs58';
import { isJsonObject } from '../json/json-object';
import { isCanonicalBase64 } from './base64-json';
import { isSpeltIn, recase, toSnake, type Casing } from './casing';
import type { DecodeErrorClass } from './errors';
import { isNetwork, type Network } from './network';

const DIGITS = /^[0-9]+$/;
const U64_MAX = 2n ** 64n - 1n;
const PUBLIC_KEY_BYTES = 32;

/**
 * One JSON object of an x402 message, read field by field with strict types. Callers name fields
 * in camelCase; the object reads them as the sender spelt them (its casing) and names them that
 * way in messages, with their path. A field name of the other casing is an error: one message is
 * written in one casing. Unknown fields are ignored, so additive x402 fields (`extensions`) pass.
 */
export class WireObject {
  private constructor(
    private readonly fields: Readonly<Record<string, unknown>>,
    private readonly path: string,
    private readonly casing: Casing,
    private readonly fail: DecodeErrorClass,
  ) {
    if (!Object.keys(fields).every((name) => isSpeltIn(casing, name))) {
      const [expected, found] = casing === 'snake' ? ['snake_case', 'camelCase'] : ['camelCase', 'snake_case'];
      throw new fail(`${path || 'the top-level object'} mixes ${found} field names into a ${expected} message`);
    }
  }

  /**
   * The top-level object of a message. Without a fixed casing it follows the sender's version
   * field: `x402_version` (our spec's form) or `x402Version` (the x402 standard).
   */
  static root(value: unknown, what: string, fail: DecodeErrorClass, casing?: Casing): WireObject {
    if (!isJsonObject(value)) throw new fail(`${what} is not a JSON object`);
    return new WireObject(value, '', casing ?? detectCasing(value, what, fail), fail);
  }

  has(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  string(name: string): string {
    return this.typed(name, 'a string', (value): value is string => typeof value === 'string');
  }

  optionalString(name: string): string | undefined {
    return this.has(name) ? this.string(name) : undefined;
  }

  boolean(name: string): boolean {
    return this.typed(name, 'a boolean', (value): value is boolean => typeof value === 'boolean');
  }

  /** One of a few allowed values (a version, a scheme, a decimals count). */
  oneOf<T extends string | number>(name: string, allowed: readonly T[]): T {
    const description = allowed.map((value) => JSON.stringify(value)).join(' or ');
    return this.typed(name, description, (value): value is T => allowed.some((option) => option === value));
  }

  integer(name: string, min: number): number {
    const description = min === 0 ? 'a non-negative integer' : `an integer of at least ${min}`;
    return this.typed(name, description, (value): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= min);
  }

  /** A non-negative integer as a JSON number (read exactly: at most 2^53) or a decimal string (a slot, a nonce). */
  integerOrDigits(name: string): number | string {
    return this.typed(
      name,
      'a non-negative integer (a JSON number at most 2^53, or a decimal string)',
      (value): value is number | string => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) || (typeof value === 'string' && DIGITS.test(value)),
    );
  }

  /** Atomic token units as a decimal string: digits only, within an SPL token amount (u64). */
  atomicAmount(name: string): string {
    return this.typed(name, 'a string of digits within u64', (value): value is string => typeof value === 'string' && DIGITS.test(value) && BigInt(value) <= U64_MAX);
  }

  network(name: string): Network {
    return this.typed(name, 'a CAIP-2 network id', isNetwork);
  }

  publicKey(name: string): string {
    return this.typed(name, 'a base58 public key', isPublicKey);
  }

  optionalPublicKey(name: string): string | undefined {
    return this.has(name) ? this.publicKey(name) : undefined;
  }

  /** Standard base64; with `bytes`, of exactly that many bytes. */
  base64(name: string, bytes?: number): string {
    const description = bytes === undefined ? 'base64' : `base64 of ${bytes} bytes`;
    return this.typed(name, description, (value): value is string => typeof value === 'string' && isCanonicalBase64(value) && (bytes === undefined || Buffer.byteLength(value, 'base64') === bytes));
  }

  /** A nested x402 object, read in this object's casing. */
  object(name: string): WireObject {
    const value = this.typed(name, 'an object', isJsonObject);
    return new WireObject(value, this.nameOf(name), this.casing, this.fail);
  }

  /** A non-empty array of x402 objects. */
  objects(name: string): WireObject[] {
    const values = this.typed(name, 'a non-empty array', (value): value is unknown[] => Array.isArray(value) && value.length > 0);
    return values.map((value, index) => {
      const path = `${this.nameOf(name)}[${index}]`;
      if (!isJsonObject(value)) throw new this.fail(`${path} must be an object`);
      return new WireObject(value, path, this.casing, this.fail);
    });
  }

  /** An opaque JSON object such as `extra`: scheme-defined, so its own keys keep their spelling. */
  optionalRecord(name: string): Readonly<Record<string, unknown>> | undefined {
    return this.has(name) ? this.typed(name, 'an object', isJsonObject) : undefined;
  }

  /** Every field of this object, keys in camelCase, values as sent. */
  camelFields(): Record<string, unknown> {
    return recase(this.fields, 'camel');
  }

  private typed<T>(name: string, description: string, accepts: (value: unknown) => value is T): T {
    const value = this.raw(name);
    if (value === undefined) throw new this.fail(`missing field ${this.nameOf(name)}`);
    if (!accepts(value)) throw new this.fail(`${this.nameOf(name)} must be ${description}`);
    return value;
  }

  private raw(name: string): unknown {
    return Object.hasOwn(this.fields, this.spelt(name)) ? this.fields[this.spelt(name)] : undefined;
  }

  private spelt(name: string): string {
    return this.casing === 'snake' ? toSnake(name) : name;
  }

  private nameOf(name: string): string {
    return this.path === '' ? this.spelt(name) : `${this.path}.${this.spelt(name)}`;
  }
}

function detectCasing(fields: Readonly<Record<string, unknown>>, what: string, fail: DecodeErrorClass): Casing {
  const snake = Object.hasOwn(fields, 'x402_version');
  const camel = Object.hasOwn(fields, 'x402Version');
  if (snake && camel) throw new fail(`${what} has both x402_version and x402Version`);
  if (!snake && !camel) throw new fail('missing field x402Version (or x402_version)');
  return snake ? 'snake' : 'camel';
}

function isPublicKey(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return bs58.decode(value).length === PUBLIC_KEY_BYTES;
  } catch {
    return false;
  }
}
