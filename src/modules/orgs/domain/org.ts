import type { OrgRole } from './org-role';

/** An org (docs/decisions.md, "Enterprise"): ids are UUIDv4, names 1 to 128 characters. */
export interface Org {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface OrgMember {
  orgId: string;
  walletAddress: string;
  role: OrgRole;
  createdAt: Date;
}

export interface Team {
  id: string;
  orgId: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface TeamWallet {
  teamId: string;
  walletAddress: string;
  createdAt: Date;
  /**
   * Whether the wallet's owner gave its word (its signature, or the operator's admin token): only a
   * consented membership counts the wallet's spend against the team's budget and shows its stats to
   * the org (docs/decisions.md, "Whose word makes a team").
   */
  consented: boolean;
}

/** An org API key as listed: never its secret, which exists only in the answer that issued it. */
export interface OrgApiKey {
  id: string;
  orgId: string;
  name: string;
  role: OrgRole;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Who made a change: the gateway's admin token, an org API key by its id, or a wallet on its own signed word (leaving a team). */
export type Actor = { kind: 'admin' } | { kind: 'key'; keyId: string } | { kind: 'wallet'; wallet: string };

/** One change to an org (or, `orgId` null, one of the operator's outside any org), with the resource before and after (null where it did not exist). */
export interface AuditEntry {
  id: string;
  orgId: string | null;
  actor: Actor;
  action: string;
  before: unknown;
  after: unknown;
  at: Date;
}

/** Names of orgs, teams and keys: 1 to 128 characters. */
export const NAME_LENGTH = { min: 1, max: 128 } as const;

/** Half of a surrogate pair without its other half: not text, and PostgreSQL refuses it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A name as the database keeps it: 1 to 128 characters counted as code points (as `char_length`
 * counts them, where class-validator's length counts UTF-16 units), well-formed text (a lone
 * surrogate cannot be stored), and no control characters (NUL cannot be stored at all). The
 * console checks names with this same rule before it sends them.
 */
export function isResourceName(value: unknown): value is string {
  if (typeof value !== 'string' || LONE_SURROGATE.test(value) || /\p{Cc}/u.test(value)) return false;
  const length = [...value].length;
  return length >= NAME_LENGTH.min && length <= NAME_LENGTH.max;
}

/** Wallet addresses as the spec bounds them: base58, 32 to 44 characters. */
export const WALLET_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** A wallet's ed25519 signature of a consent text, base64 (src/modules/orgs/domain/team-wallet-consent.ts). */
export const CONSENT_SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;
