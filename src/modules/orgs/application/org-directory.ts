import { randomUUID } from 'node:crypto';
import { Injectable, Optional } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { mayGrantMemberRole, mayManageKeyRole } from '../domain/grants';
import type { Actor, AuditEntry, Org, OrgApiKey, OrgMember, Team, TeamWallet } from '../domain/org';
import { newOrgApiKeySecret } from '../domain/org-api-key-secret';
import { joinConsentText, leaveConsentText, walletSigned } from '../domain/team-wallet-consent';
import type { OrgRole } from '../domain/org-role';
import { OperatorAudit } from '../ports/operator-audit';
import { ActorRevoked, AlreadyExists, OrgStore, type Page } from '../ports/org-store';

/** Who calls: the admin token (role null, above all orgs) or an org key with its role and id. */
export interface OrgCaller {
  actor: Actor;
  /** The caller's role in the org; null for the admin token. */
  role: OrgRole | null;
}

/** An issued key with its secret, which no later answer shows again. */
export interface IssuedKey {
  key: OrgApiKey;
  secret: string;
}

/** A page of the audit log: 50 entries, oldest first. */
export const AUDIT_PAGE_SIZE = 50;
/** Far past any log: the offset of a larger page would overflow. */
export const MAX_AUDIT_PAGE = 1_000_000;

/**
 * The org directory (spec 4.9; docs/decisions.md, "Enterprise"): orgs, members, teams, team
 * wallets, API keys and the audit. Route guards have checked the caller's credential, role and
 * org; the rules that depend on what is granted are here. Without storage every call is a 503.
 */
@Injectable()
export class OrgDirectory {
  constructor(
    @Optional() private readonly store?: OrgStore,
    @Optional() private readonly operator?: OperatorAudit,
  ) {}

  async createOrg(name: string, ownerWallet: string, now = new Date()): Promise<Org> {
    const org: Org = { id: randomUUID(), name, createdAt: now, updatedAt: now };
    await this.storage().createOrg(org, ownerWallet, { kind: 'admin' });
    return org;
  }

  async org(orgId: string): Promise<Org> {
    const org = await this.storage().findOrg(orgId);
    if (!org) throw orgNotFound();
    return org;
  }

  orgs(): Promise<Page<Org>> {
    return this.storage().listOrgs();
  }

  async addMember(caller: OrgCaller, orgId: string, walletAddress: string, role: OrgRole): Promise<OrgMember> {
    await this.org(orgId);
    if (!mayGrantMemberRole(caller.role, role)) throw notGrantable(`only owners may make a member ${role}`);
    const member: OrgMember = { orgId, walletAddress, role, createdAt: new Date() };
    await exclusive(() => this.storage().addMember(member, caller.actor), `wallet ${walletAddress} is already a member of this org`);
    return member;
  }

  async members(orgId: string): Promise<Page<OrgMember>> {
    await this.org(orgId);
    return this.storage().listMembers(orgId);
  }

  async createTeam(caller: OrgCaller, orgId: string, name: string, now = new Date()): Promise<Team> {
    await this.org(orgId);
    const team: Team = { id: randomUUID(), orgId, name, createdAt: now, updatedAt: now };
    await exclusive(() => this.storage().createTeam(team, caller.actor), `the org already has a team named ${JSON.stringify(name)}`);
    return team;
  }

  async teams(orgId: string): Promise<Page<Team>> {
    await this.org(orgId);
    return this.storage().listTeams(orgId);
  }

  /**
   * A wallet joins a team on its owner's word (docs/decisions.md, "Whose word makes a team"): an
   * org key presents the wallet's signature of joinConsentText; the admin token may add without
   * one. A signature for a membership that has none yet records it (`created` false: a 200).
   */
  async addTeamWallet(caller: OrgCaller, orgId: string, teamId: string, walletAddress: string, consentSignature: string | undefined): Promise<{ wallet: TeamWallet; created: boolean }> {
    const team = await this.team(orgId, teamId);
    if (consentSignature === undefined && caller.actor.kind !== 'admin') {
      throw new GatewayError('org.consent_required', `an org key adds a wallet only with consent_signature: the wallet's signature of "${joinConsentText(orgId, team.id, walletAddress)}"`);
    }
    if (consentSignature !== undefined && !walletSigned(walletAddress, joinConsentText(orgId, team.id, walletAddress), consentSignature))
      throw consentInvalid(joinConsentText(orgId, team.id, walletAddress));
    const existing = await this.storage().findTeamWallet(team.id, walletAddress);
    if (existing && !existing.consented && consentSignature !== undefined) {
      await landed(() => this.storage().consentTeamWallet(orgId, team.id, walletAddress, caller.actor));
      return { wallet: { ...existing, consented: true }, created: false };
    }
    const wallet: TeamWallet = { teamId: team.id, walletAddress, createdAt: new Date(), consented: true };
    await exclusive(() => this.storage().addTeamWallet(orgId, wallet, caller.actor), `wallet ${walletAddress} is already in this team`);
    return { wallet, created: true };
  }

  /** A wallet leaves a team on its own word, its signature of leaveConsentText; no key of the org is needed. */
  async leaveTeam(orgId: string, teamId: string, walletAddress: string, signature: string): Promise<TeamWallet> {
    // Checked first: whoever cannot sign for the wallet learns nothing of the org or the team.
    if (!walletSigned(walletAddress, leaveConsentText(orgId, teamId, walletAddress), signature)) throw consentInvalid(leaveConsentText(orgId, teamId, walletAddress));
    const team = await this.team(orgId, teamId);
    const existing = await this.storage().findTeamWallet(team.id, walletAddress);
    if (!existing || !(await this.storage().removeTeamWallet(orgId, team.id, walletAddress, { kind: 'wallet', wallet: walletAddress }))) {
      throw new GatewayError('org.team_wallet_not_found', 'the wallet is not in this team');
    }
    return existing;
  }

  async teamWallets(orgId: string, teamId: string): Promise<Page<TeamWallet>> {
    const team = await this.team(orgId, teamId);
    return this.storage().listTeamWallets(team.id);
  }

  hasTeamWallet(orgId: string, walletAddress: string): Promise<boolean> {
    return this.storage().hasTeamWallet(orgId, walletAddress);
  }

  async issueKey(caller: OrgCaller, orgId: string, name: string, role: OrgRole): Promise<IssuedKey> {
    await this.org(orgId);
    if (!mayManageKeyRole(caller.role, role)) throw notGrantable(`a ${caller.role} key cannot issue ${role} keys`);
    const { secret, hash } = newOrgApiKeySecret();
    const key: OrgApiKey = { id: randomUUID(), orgId, name, role, createdAt: new Date(), revokedAt: null };
    await exclusive(() => this.storage().issueKey(key, hash, caller.actor), `the org already has a key named ${JSON.stringify(name)}`);
    return { key, secret };
  }

  async keys(orgId: string): Promise<Page<OrgApiKey>> {
    await this.org(orgId);
    return this.storage().listKeys(orgId);
  }

  /** Revoked at once: the next request with it is a 401. Revoking a revoked key changes nothing. */
  async revokeKey(caller: OrgCaller, orgId: string, keyId: string): Promise<OrgApiKey> {
    await this.org(orgId);
    const key = await this.storage().findKey(orgId, keyId);
    if (!key) throw new GatewayError('org.key_not_found', 'API key not found');
    if (!mayManageKeyRole(caller.role, key.role)) throw notGrantable(`a ${caller.role} key cannot revoke ${key.role} keys`);
    const at = new Date();
    const revoked = await landed(() => this.storage().revokeKey(orgId, keyId, at, caller.actor));
    return revoked ? { ...key, revokedAt: at } : key;
  }

  /** `page` counts from 1. */
  async audit(orgId: string, page: number): Promise<Page<AuditEntry>> {
    await this.org(orgId);
    return this.storage().audit(orgId, { offset: (page - 1) * AUDIT_PAGE_SIZE, limit: AUDIT_PAGE_SIZE });
  }

  /** The operator's audit (changes outside any org); `page` counts from 1. */
  operatorAudit(page: number): Promise<Page<AuditEntry>> {
    if (!this.operator) throw storageNotConfigured();
    return this.operator.page({ offset: (page - 1) * AUDIT_PAGE_SIZE, limit: AUDIT_PAGE_SIZE });
  }

  /** The team of this org; another org's team is not found. */
  async team(orgId: string, teamId: string): Promise<Team> {
    await this.org(orgId);
    const team = await this.storage().findTeam(orgId, teamId);
    if (!team) throw new GatewayError('org.team_not_found', 'team not found');
    return team;
  }

  private storage(): OrgStore {
    if (!this.store) throw storageNotConfigured();
    return this.store;
  }
}

function consentInvalid(text: string): GatewayError {
  return new GatewayError('org.consent_invalid', `consent_signature is not the wallet's ed25519 signature (base64) of "${text}"`);
}

function storageNotConfigured(): GatewayError {
  return new GatewayError('org.storage_not_configured', 'enterprise routes need storage; GW_STORAGE is none');
}

function orgNotFound(): GatewayError {
  return new GatewayError('org.not_found', 'org not found');
}

function notGrantable(message: string): GatewayError {
  return new GatewayError('org.role_not_grantable', message);
}

async function exclusive(write: () => Promise<void>, message: string): Promise<void> {
  try {
    await landed(write);
  } catch (err) {
    if (err instanceof AlreadyExists) throw new GatewayError('org.already_exists', message);
    throw err;
  }
}

/** A change whose key was revoked before it could land is refused as the key would now be: 401. */
async function landed<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof ActorRevoked) throw new GatewayError('org.unauthorized', 'missing or invalid admin token or API key');
    throw err;
  }
}
