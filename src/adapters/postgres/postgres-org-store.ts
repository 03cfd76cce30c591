import { randomUUID } from 'node:crypto';
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
import type { Actor, AuditEntry, Org, OrgApiKey, OrgMember, Team, TeamWallet } from '../../modules/orgs/domain/org';
import { OrgApiKeys, type OrgKeyHolder } from '../../modules/orgs/ports/org-api-keys';
import { OperatorAudit } from '../../modules/orgs/ports/operator-audit';
import { ActorRevoked, AlreadyExists, OrgStore, type Page } from '../../modules/orgs/ports/org-store';
import { OrgApiKeyRow, OrgAuditRow, OrgMemberRow, OrgRow, TeamRow, TeamWalletRow } from './entities/org.row';

/** PostgreSQL's unique_violation: any unique key of the org tables hit by a write. */
const UNIQUE_VIOLATION = '23505';
/** Ids reach the store from URLs; a uuid column refuses anything else with an error, so such an id is simply not found. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Orgs in PostgreSQL (or embedded PGlite, reached through the same driver). Each change and its
 * audit entries go through one `dataSource.transaction`, so no change lands without its audit.
 */
export class PostgresOrgStore extends OrgStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async createOrg(org: Org, ownerWallet: string, actor: Actor): Promise<void> {
    const owner: OrgMember = { orgId: org.id, walletAddress: ownerWallet, role: 'owner', createdAt: org.createdAt };
    // The owner's membership is audited as any other, so the members can be rebuilt from the audit alone.
    await this.change(actor, async (manager) => {
      await manager.insert(OrgRow, org);
      await manager.insert(OrgMemberRow, owner);
      await writeAudit(manager, org.id, actor, 'org.created', null, orgView(org));
      await writeAudit(manager, org.id, actor, 'member.added', null, memberView(owner));
    });
  }

  async findOrg(orgId: string): Promise<Org | null> {
    if (!UUID.test(orgId)) return null;
    const row = await this.dataSource.getRepository(OrgRow).findOneBy({ id: orgId });
    return row ? { ...row } : null;
  }

  async listOrgs(): Promise<Page<Org>> {
    const rows = await this.dataSource.getRepository(OrgRow).find({ order: { createdAt: 'ASC', id: 'ASC' } });
    return page(rows.map((row) => ({ ...row })));
  }

  async addMember(member: OrgMember, actor: Actor): Promise<void> {
    await this.change(actor, async (manager) => {
      await manager.insert(OrgMemberRow, member);
      await writeAudit(manager, member.orgId, actor, 'member.added', null, memberView(member));
    });
  }

  async findMember(orgId: string, walletAddress: string): Promise<OrgMember | null> {
    if (!UUID.test(orgId)) return null;
    const row = await this.dataSource.getRepository(OrgMemberRow).findOneBy({ orgId, walletAddress });
    return row ? { ...row } : null;
  }

  async listMembers(orgId: string): Promise<Page<OrgMember>> {
    if (!UUID.test(orgId)) return page([]);
    const rows = await this.dataSource.getRepository(OrgMemberRow).find({ where: { orgId }, order: { createdAt: 'ASC', walletAddress: 'ASC' } });
    return page(rows.map((row) => ({ ...row })));
  }

  async createTeam(team: Team, actor: Actor): Promise<void> {
    await this.change(actor, async (manager) => {
      await manager.insert(TeamRow, team);
      await writeAudit(manager, team.orgId, actor, 'team.created', null, teamView(team));
    });
  }

  async findTeam(orgId: string, teamId: string): Promise<Team | null> {
    if (!UUID.test(orgId) || !UUID.test(teamId)) return null;
    const row = await this.dataSource.getRepository(TeamRow).findOneBy({ id: teamId, orgId });
    return row ? { ...row } : null;
  }

  async listTeams(orgId: string): Promise<Page<Team>> {
    if (!UUID.test(orgId)) return page([]);
    const rows = await this.dataSource.getRepository(TeamRow).find({ where: { orgId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return page(rows.map((row) => ({ ...row })));
  }

  async addTeamWallet(orgId: string, wallet: TeamWallet, actor: Actor): Promise<void> {
    await this.change(actor, async (manager) => {
      // The audit entry is filed under `orgId`: a team of another org would put it in the wrong org's log.
      if (!(await manager.existsBy(TeamRow, { id: wallet.teamId, orgId }))) throw new Error(`team ${wallet.teamId} is not a team of org ${orgId}`);
      await manager.insert(TeamWalletRow, wallet);
      await writeAudit(manager, orgId, actor, 'team_wallet.added', null, teamWalletView(wallet));
    });
  }

  async findTeamWallet(teamId: string, walletAddress: string): Promise<TeamWallet | null> {
    if (!UUID.test(teamId)) return null;
    const row = await this.dataSource.getRepository(TeamWalletRow).findOneBy({ teamId, walletAddress });
    return row ? { ...row } : null;
  }

  async consentTeamWallet(orgId: string, teamId: string, walletAddress: string, actor: Actor): Promise<boolean> {
    return this.change(actor, async (manager) => {
      const row = await manager.findOne(TeamWalletRow, { where: { teamId, walletAddress }, lock: { mode: 'pessimistic_write' } });
      if (!row || row.consented) return false;
      await manager.update(TeamWalletRow, { teamId, walletAddress }, { consented: true });
      await writeAudit(manager, orgId, actor, 'team_wallet.consented', teamWalletView(row), teamWalletView({ ...row, consented: true }));
      return true;
    });
  }

  async removeTeamWallet(orgId: string, teamId: string, walletAddress: string, actor: Actor): Promise<boolean> {
    return this.change(actor, async (manager) => {
      const row = await manager.findOne(TeamWalletRow, { where: { teamId, walletAddress }, lock: { mode: 'pessimistic_write' } });
      if (!row) return false;
      await manager.delete(TeamWalletRow, { teamId, walletAddress });
      await writeAudit(manager, orgId, actor, 'team_wallet.left', teamWalletView(row), null);
      return true;
    });
  }

  async listTeamWallets(teamId: string): Promise<Page<TeamWallet>> {
    if (!UUID.test(teamId)) return page([]);
    const rows = await this.dataSource.getRepository(TeamWalletRow).find({ where: { teamId }, order: { createdAt: 'ASC', walletAddress: 'ASC' } });
    return page(rows.map((row) => ({ ...row })));
  }

  async hasTeamWallet(orgId: string, walletAddress: string): Promise<boolean> {
    if (!UUID.test(orgId)) return false;
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM team_wallets w JOIN teams t ON t.id = w.team_id WHERE t.org_id = $1 AND w.wallet_address = $2 AND w.consented LIMIT 1', [
      orgId,
      walletAddress,
    ]);
    return rows.length > 0;
  }

  async issueKey(key: OrgApiKey, secretHash: Buffer, actor: Actor): Promise<void> {
    await this.change(actor, async (manager) => {
      await manager.insert(OrgApiKeyRow, { ...apiKey(key), secretHash });
      await writeAudit(manager, key.orgId, actor, 'key.issued', null, keyView(key));
    });
  }

  async listKeys(orgId: string): Promise<Page<OrgApiKey>> {
    if (!UUID.test(orgId)) return page([]);
    const rows = await this.dataSource.getRepository(OrgApiKeyRow).find({ where: { orgId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return page(rows.map(apiKey));
  }

  async findKey(orgId: string, keyId: string): Promise<OrgApiKey | null> {
    if (!UUID.test(orgId) || !UUID.test(keyId)) return null;
    const row = await this.dataSource.getRepository(OrgApiKeyRow).findOneBy({ id: keyId, orgId });
    return row ? apiKey(row) : null;
  }

  async revokeKey(orgId: string, keyId: string, at: Date, actor: Actor): Promise<boolean> {
    if (!UUID.test(orgId) || !UUID.test(keyId)) return false;
    return this.change(actor, async (manager) => {
      // Locked, so of two concurrent revocations one waits, sees the key revoked and writes no audit entry.
      const row = await manager.findOne(OrgApiKeyRow, { where: { id: keyId, orgId }, lock: { mode: 'pessimistic_write' } });
      if (!row || row.revokedAt) return false;
      const before = apiKey(row);
      await manager.update(OrgApiKeyRow, { id: keyId }, { revokedAt: at });
      await writeAudit(manager, orgId, actor, 'key.revoked', keyView(before), keyView({ ...before, revokedAt: at }));
      return true;
    });
  }

  async audit(orgId: string, { offset, limit }: { offset: number; limit: number }): Promise<Page<AuditEntry>> {
    if (!UUID.test(orgId)) return page([]);
    const [rows, total] = await this.dataSource.getRepository(OrgAuditRow).findAndCount({ where: { orgId }, order: { at: 'ASC', id: 'ASC' }, skip: offset, take: limit });
    return { items: rows.map(auditEntry), total };
  }

  /** One transaction; a unique key hit anywhere in it is AlreadyExists. */
  /**
   * One transaction for a change and its audit entry. A key's change first takes a share lock on
   * the key's row, unrevoked: it waits for a revocation in flight (which locks the row) and then
   * sees it, so a revoked key makes nothing more, however many of its requests were past the guard.
   */
  private async change<T>(actor: Actor, write: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        if (actor.kind === 'key') {
          const live: unknown[] = await manager.query('SELECT 1 FROM org_api_keys WHERE id = $1 AND revoked_at IS NULL FOR SHARE', [actor.keyId]);
          if (live.length === 0) throw new ActorRevoked(`API key ${actor.keyId} was revoked`);
        }
        return write(manager);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AlreadyExists(err.message, { cause: err });
      throw err;
    }
  }
}

/** The auth guard's lookup: one indexed read by the key's hash, kept apart from the store the org routes use. */
export class PostgresOrgApiKeys extends OrgApiKeys {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async findActive(keyHash: Buffer): Promise<OrgKeyHolder | null> {
    const row = await this.dataSource.getRepository(OrgApiKeyRow).createQueryBuilder('key').where('key.secret_hash = :keyHash AND key.revoked_at IS NULL', { keyHash }).getOne();
    return row ? { keyId: row.id, orgId: row.orgId, role: row.role } : null;
  }
}

/**
 * Stamped by the database's clock, and always after the org's latest entry: the audit pages by
 * (at, id), and PGlite's clock can give two statements of one transaction the same instant, which
 * a random id would then order by chance. Replicas whose clocks disagree still append in order.
 */
export async function writeAudit(manager: EntityManager, orgId: string, actor: Actor, action: string, before: object | null, after: object | null): Promise<void> {
  await manager.query(
    `INSERT INTO org_audit (id, org_id, actor, action, before, after, at)
     SELECT $1::uuid, $2::uuid, $3, $4, $5::jsonb, $6::jsonb, greatest(clock_timestamp(), max(at) + interval '1 microsecond')
     FROM org_audit WHERE org_id = $2::uuid`,
    [randomUUID(), orgId, actorText(actor), action, before === null ? null : JSON.stringify(before), after === null ? null : JSON.stringify(after)],
  );
}

/** The operator's audit entry of a change outside any org, stamped as the org audit's are (writeAudit above). */
export async function writeOperatorAudit(manager: EntityManager, action: string, before: object | null, after: object): Promise<void> {
  await manager.query(
    `INSERT INTO operator_audit (id, actor, action, before, after, at)
     SELECT $1::uuid, 'admin', $2, $3::jsonb, $4::jsonb, greatest(clock_timestamp(), max(at) + interval '1 microsecond')
     FROM operator_audit`,
    [randomUUID(), action, before === null ? null : JSON.stringify(before), JSON.stringify(after)],
  );
}

interface OperatorAuditRow {
  id: string;
  actor: string;
  action: string;
  before: unknown;
  after: unknown;
  at: Date;
}

/** GET /v1/audit: the operator's audit, oldest first. */
export class PostgresOperatorAudit extends OperatorAudit {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async page({ offset, limit }: { offset: number; limit: number }): Promise<Page<AuditEntry>> {
    const [rows, counted] = await Promise.all([
      this.dataSource.query('SELECT id, actor, action, before, after, at FROM operator_audit ORDER BY at, id OFFSET $1 LIMIT $2', [offset, limit]) as Promise<OperatorAuditRow[]>,
      this.dataSource.query('SELECT count(*)::int AS total FROM operator_audit') as Promise<Array<{ total: number }>>,
    ]);
    return { items: rows.map((row) => auditEntry({ ...row, orgId: null })), total: counted[0].total };
  }
}

function actorText(actor: Actor): string {
  if (actor.kind === 'admin') return 'admin';
  return actor.kind === 'key' ? `key:${actor.keyId}` : `wallet:${actor.wallet}`;
}

function auditEntry(row: Omit<OrgAuditRow, 'orgId'> & { orgId: string | null }): AuditEntry {
  const actor: Actor =
    row.actor === 'admin'
      ? { kind: 'admin' }
      : row.actor.startsWith('wallet:')
        ? { kind: 'wallet', wallet: row.actor.slice('wallet:'.length) }
        : { kind: 'key', keyId: row.actor.slice('key:'.length) };
  return { id: row.id, orgId: row.orgId, actor, action: row.action, before: row.before, after: row.after, at: row.at };
}

/** The port's lists are whole (no page is asked for), so the total is the count of items. */
function page<T>(items: T[]): Page<T> {
  return { items, total: items.length };
}

/** A key without its hash, whatever the object carries. */
function apiKey(key: OrgApiKey): OrgApiKey {
  return { id: key.id, orgId: key.orgId, name: key.name, role: key.role, createdAt: key.createdAt, revokedAt: key.revokedAt };
}

/*
 * The audit's `before` and `after`: the resources as the API shows them, the shapes of
 * src/modules/orgs/http/org-views.ts, which an adapter may not import (.dependency-cruiser.cjs).
 */
const orgView = (org: Org) => ({ id: org.id, name: org.name, created_at: org.createdAt.toISOString(), updated_at: org.updatedAt.toISOString() });

const memberView = (member: OrgMember) => ({ wallet_address: member.walletAddress, role: member.role });

const teamView = (team: Team) => ({ id: team.id, org_id: team.orgId, name: team.name, created_at: team.createdAt.toISOString(), updated_at: team.updatedAt.toISOString() });

/** With the team's id, which the API's view leaves to the path: a wallet may be in several teams of an org. */
const teamWalletView = (wallet: TeamWallet) => ({ team_id: wallet.teamId, wallet_address: wallet.walletAddress, consented: wallet.consented });

const keyView = (key: OrgApiKey) => ({ id: key.id, name: key.name, role: key.role, created_at: key.createdAt.toISOString(), revoked_at: key.revokedAt?.toISOString() ?? null });

function isUniqueViolation(err: unknown): err is QueryFailedError {
  return err instanceof QueryFailedError && (err.driverError as { code?: unknown }).code === UNIQUE_VIOLATION;
}
