import type { Actor, AuditEntry, Org, OrgApiKey, OrgMember, Team, TeamWallet } from '../domain/org';

/** A page of a list, oldest first, with the count of all items. */
export interface Page<T> {
  items: T[];
  total: number;
}

/** The member, team, team wallet or key already exists (a unique key was hit). */
export class AlreadyExists extends Error {
  override name = 'AlreadyExists';
}

/** The API key that made a change was revoked before the change could land: the change did not happen. */
export class ActorRevoked extends Error {
  override name = 'ActorRevoked';
}

/**
 * Orgs and what they hold, in PostgreSQL or PGlite. Every change writes its audit entry in the
 * same transaction, so no change lands without one; a change made with an API key lands only while
 * the key is unrevoked, checked in that transaction (ActorRevoked otherwise). Lookups by an org's child never cross orgs:
 * a team id of another org is not found.
 */
export abstract class OrgStore {
  /** The org, and its owner wallet as an `owner` member. */
  abstract createOrg(org: Org, ownerWallet: string, actor: Actor): Promise<void>;
  abstract findOrg(orgId: string): Promise<Org | null>;
  /** Every org, oldest first (the operator's console lists them). */
  abstract listOrgs(): Promise<Page<Org>>;

  /** Throws AlreadyExists when the wallet is a member already. */
  abstract addMember(member: OrgMember, actor: Actor): Promise<void>;
  abstract findMember(orgId: string, walletAddress: string): Promise<OrgMember | null>;
  abstract listMembers(orgId: string): Promise<Page<OrgMember>>;

  /** Throws AlreadyExists when the org has a team of this name. */
  abstract createTeam(team: Team, actor: Actor): Promise<void>;
  abstract findTeam(orgId: string, teamId: string): Promise<Team | null>;
  abstract listTeams(orgId: string): Promise<Page<Team>>;

  /** Throws AlreadyExists when the wallet is in the team already. */
  abstract addTeamWallet(orgId: string, wallet: TeamWallet, actor: Actor): Promise<void>;
  abstract findTeamWallet(teamId: string, walletAddress: string): Promise<TeamWallet | null>;
  /** Records the wallet's consent to an unconsented membership: true when this call recorded it. */
  abstract consentTeamWallet(orgId: string, teamId: string, walletAddress: string, actor: Actor): Promise<boolean>;
  /** Ends a membership: true when this call ended it. */
  abstract removeTeamWallet(orgId: string, teamId: string, walletAddress: string, actor: Actor): Promise<boolean>;
  abstract listTeamWallets(teamId: string): Promise<Page<TeamWallet>>;
  /** Whether any team of the org has the wallet, with its consent. */
  abstract hasTeamWallet(orgId: string, walletAddress: string): Promise<boolean>;

  /** Stores a new key by the SHA-256 of its secret. */
  abstract issueKey(key: OrgApiKey, secretHash: Buffer, actor: Actor): Promise<void>;
  abstract listKeys(orgId: string): Promise<Page<OrgApiKey>>;
  abstract findKey(orgId: string, keyId: string): Promise<OrgApiKey | null>;
  /** Revokes at once: true when this call revoked it, false when it was revoked already. */
  abstract revokeKey(orgId: string, keyId: string, at: Date, actor: Actor): Promise<boolean>;

  abstract audit(orgId: string, page: { offset: number; limit: number }): Promise<Page<AuditEntry>>;
}
