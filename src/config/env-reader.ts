import { isIPv4, isIPv6 } from 'node:net';
import bs58 from 'bs58';
import { Keypair } from '@solana/web3.js';
import { Secret } from './secret';

/** A configuration problem that stops the start; its message is one line naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

const MAX_FEE_PAYER_KEYS = 8;

/**
 * Typed reads of environment variables. Blank counts as unset. Values of secret variables
 * never appear in messages.
 */
export class EnvReader {
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
    }
    return value as T;
  }

  integer(name: string, fallback: number, range: { min: number; max?: number }): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const max = range.max ?? Number.MAX_SAFE_INTEGER;
    const parsed = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < range.min || parsed > max) {
      const bounds = range.max === undefined ? `at least ${range.min}` : `between ${range.min} and ${max}`;
      throw new ConfigError(`${name} must be an integer ${bounds} (got "${value}")`);
    }
    return parsed;
  }

  url(name: string, fallback: string, protocols: readonly string[] = ['http:', 'https:']): string {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!isUrl(value, protocols)) {
      throw new ConfigError(`${name} must be a ${protocols.map((p) => p + '//').join(' or ')} URL (got "${value}")`);
    }
    return value.replace(/\/+$/, '');
  }

  secret(name: string): Secret | null {
    const value = this.raw(name);
    return value === undefined ? null : new Secret(value);
  }

  /** A URL that may carry credentials: validated, never echoed. */
  secretUrl(name: string, protocols: readonly string[]): Secret | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    if (!isUrl(value, protocols)) {
      throw new ConfigError(`${name} must be a ${protocols.map((p) => p + '//').join(' or ')} URL (value not shown)`);
    }
    return new Secret(value);
  }

  /** A base58 Solana address (wallet, mint or program id): 32 bytes. */
  address(name: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    if (!isBase58Address(value)) {
      throw new ConfigError(`${name} must be a base58 Solana address of 32 bytes (got "${value}")`);
    }
    return value;
  }

  /** Comma-separated base58 64-byte secret keys, each a consistent ed25519 key pair. */
  secretKeys(name: string): Secret<Uint8Array>[] {
    const value = this.raw(name);
    if (value === undefined) return [];
    const parts = value.split(',').map((part) => part.trim());
    if (parts.length > MAX_FEE_PAYER_KEYS) {
      throw new ConfigError(`${name} holds ${parts.length} keys; at most ${MAX_FEE_PAYER_KEYS} (a primary and 7 more) are allowed`);
    }
    return parts.map((part, index) => {
      const bytes = decodeBase58(part);
      if (bytes?.length !== 64 || !isKeyPair(bytes)) {
        throw new ConfigError(`${name} key #${index + 1} is not a base58 64-byte Solana secret key (value not shown)`);
      }
      return new Secret(bytes);
    });
  }

  /** Comma-separated CIDRs (`127.0.0.1/32`, `fd00::/8`); blank is none. */
  cidrs(name: string): string[] {
    const value = this.raw(name);
    if (value === undefined) return [];
    return value.split(',').map((part) => {
      const cidr = part.trim();
      const [address, bits, extra] = cidr.split('/');
      const max = isIPv4(address) ? 32 : isIPv6(address) ? 128 : -1;
      if (extra !== undefined || max < 0 || !/^\d{1,3}$/.test(bits ?? '') || Number(bits) > max) throw new ConfigError(`${name}: "${cidr.slice(0, 60)}" is not a CIDR like 127.0.0.1/32`);
      return cidr;
    });
  }

  /** Comma-separated origins such as https://app.example.com (scheme, host and optional port only). */
  origins(name: string): string[] {
    const value = this.raw(name);
    if (value === undefined) return [];
    return value.split(',').map((part) => {
      const origin = part.trim();
      if (!isUrl(origin, ['http:', 'https:']) || new URL(origin).origin !== origin) {
        throw new ConfigError(`${name} must list origins like https://app.example.com, comma-separated (got "${origin}")`);
      }
      return origin;
    });
  }
}

function isUrl(value: string, protocols: readonly string[]): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.host !== '';
  } catch {
    return false;
  }
}

function decodeBase58(value: string): Uint8Array | null {
  try {
    return bs58.decode(value);
  } catch {
    return null;
  }
}

export function isBase58Address(value: string): boolean {
  return value.length >= 32 && value.length <= 44 && decodeBase58(value)?.length === 32;
}

function isKeyPair(secretKey: Uint8Array): boolean {
  try {
    Keypair.fromSecretKey(secretKey);
    return true;
  } catch {
    return false;
  }
}
