import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Actor, Org, OrgApiKey, OrgMember, Team, TeamWallet } from '../../src/modules/orgs/domain/org';
import type { OrgRole } from '../../src/modules/orgs/domain/org-role';
import type { OrgApiKeys } from '../../src/modules/orgs/ports/org-api-keys';
import { ActorRevoked, AlreadyExists, type OrgStore } from '../../src/modules/orgs/ports/org-store';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ADMIN: Actor = { kind: 'admin' };
const T0 = Date.parse('2026-11-25T10:00:00.000Z');

/** A fresh base58 wallet address of 44 characters. */
function wallet(): string {
  return Array.from(randomBytes(44), (byte) => BASE58[byte % BASE58.length]).join('');
}

/** The instant `seconds` after a fixed start, so tests choose the order of creation times. */
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);

const newOrg = (createdAt = at(0)): Org => ({ id: randomUUID(), name: 'Acme', createdAt, updatedAt: createdAt });
const newTeam = (orgId: string, name: string, createdAt = at(1)): Team => ({ id: randomUUID(), orgId, name, createdAt, updatedAt: createdAt });
const newKey = (orgId: string, name: string, role: OrgRole = 'admin', createdAt = at(2)): OrgApiKey => ({ id: randomUUID(), orgId, name, role, createdAt, revokedAt: null });
const newHash = (): Buffer => createHash('sha256').update(randomBytes(32)).digest();

/** The behaviour every OrgStore and OrgApiKeys adapter must have; each adapter's spec runs it against its own. */
export function orgStoreContract(open: () => Promise<{ store: OrgStore; keys: OrgApiKeys; close: () => Promise<void> }>): void {
  let store: OrgStore;
  let keys: OrgApiKeys;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, keys, close } = await open());
  });
  afterAll(() => close());

  async function createdOrg(owner = wallet()): Promise<Org> {
    const org = newOrg();
    await store.createOrg(org, owner, ADMIN);
    return org;
  }

  /** The audit's actions, oldest first. */
  async function actions(orgId: string): Promise<string[]> {
    return (await store.audit(orgId, { offset: 0, limit: 100 })).items.map((entry) => entry.action);
  }

  it('creates an org with its owner as a member, audited as two entries by the actor', async () => {
    const owner = wallet();
    const org = await createdOrg(owner);
    expect(await store.findOrg(org.id)).toEqual(org);
    expect(await store.findMember(org.id, owner)).toEqual({ orgId: org.id, walletAddress: owner, role: 'owner', createdAt: org.createdAt });
    const audit = await store.audit(org.id, { offset: 0, limit: 10 });
    expect(audit.total).toBe(2);
    expect(audit.items).toEqual([
      {
        id: expect.any(String),
        orgId: org.id,
        actor: ADMIN,
        action: 'org.created',
        before: null,
        after: { id: org.id, name: 'Acme', created_at: '2026-11-25T10:00:00.000Z', updated_at: '2026-11-25T10:00:00.000Z' },
        at: expect.any(Date),
      },
      { id: expect.any(String), orgId: org.id, actor: ADMIN, action: 'member.added', before: null, after: { wallet_address: owner, role: 'owner' }, at: expect.any(Date) },
    ]);
  });

  it('lists every org oldest first', async () => {
    const [earlier, later] = [newOrg(at(50)), newOrg(at(60))];
    // Created in the other order: the list goes by creation time.
    await store.createOrg(later, wallet(), ADMIN);
    await store.createOrg(earlier, wallet(), ADMIN);
    const { items, total } = await store.listOrgs();
    expect(total).toBe(items.length);
    const ids = items.map((org) => org.id);
    expect(ids.indexOf(earlier.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(earlier.id)).toBeLessThan(ids.indexOf(later.id));
    expect(items[ids.indexOf(later.id)]).toEqual(later);
  });

  it('refuses an org id taken already, and writes no audit entry for it', async () => {
    const org = await createdOrg();
    await expect(store.createOrg({ ...org, name: 'Other' }, wallet(), ADMIN)).rejects.toThrow(AlreadyExists);
    expect(await store.findOrg(org.id)).toEqual(org);
    expect(await actions(org.id)).toEqual(['org.created', 'member.added']);
  });

  it('finds nothing for unknown or malformed ids, without throwing', async () => {
    const org = await createdOrg();
    expect(await store.findOrg(randomUUID())).toBeNull();
    expect(await store.findOrg('not-a-uuid')).toBeNull();
    expect(await store.findMember('not-a-uuid', wallet())).toBeNull();
    expect(await store.findMember(org.id, wallet())).toBeNull();
    expect(await store.findTeam(org.id, 'not-a-uuid')).toBeNull();
    expect(await store.findTeam(org.id, randomUUID())).toBeNull();
    expect(await store.findKey(org.id, "1' OR '1'='1")).toBeNull();
    expect(await store.findKey(org.id, randomUUID())).toBeNull();
    expect(await store.revokeKey(org.id, 'not-a-uuid', at(9), ADMIN)).toBe(false);
    const empty = { items: [], total: 0 };
    expect(await store.listMembers('x')).toEqual(empty);
    expect(await store.listTeams('x')).toEqual(empty);
    expect(await store.listTeamWallets('x')).toEqual(empty);
    expect(await store.listTeamWallets(randomUUID())).toEqual(empty);
    expect(await store.listKeys('x')).toEqual(empty);
    expect(await store.audit('x', { offset: 0, limit: 10 })).toEqual(empty);
  });

  it('adds members, lists them oldest first with the total, and refuses a wallet that is a member already', async () => {
    const owner = wallet();
    const org = await createdOrg(owner);
    const later: OrgMember = { orgId: org.id, walletAddress: wallet(), role: 'member', createdAt: at(20) };
    const earlier: OrgMember = { orgId: org.id, walletAddress: wallet(), role: 'admin', createdAt: at(10) };
    // A change made with a key lands only while the key is live: this one is.
    const writer = newKey(org.id, 'writer', 'admin', at(1));
    await store.issueKey(writer, newHash(), ADMIN);
    await store.addMember(later, { kind: 'key', keyId: writer.id });
    await store.addMember(earlier, ADMIN);
    expect(await store.findMember(org.id, later.walletAddress)).toEqual(later);
    const members = await store.listMembers(org.id);
    expect(members.total).toBe(3);
    expect(members.items.map((member) => member.walletAddress)).toEqual([owner, earlier.walletAddress, later.walletAddress]);
    await expect(store.addMember({ ...later, role: 'admin' }, ADMIN)).rejects.toThrow(AlreadyExists);
    await expect(store.addMember({ ...later, walletAddress: owner }, ADMIN)).rejects.toThrow(AlreadyExists);
    expect(await store.findMember(org.id, later.walletAddress)).toEqual(later);
    expect(await actions(org.id)).toEqual(['org.created', 'member.added', 'key.issued', 'member.added', 'member.added']);
  });

  it('lands no change made with a key once the key is revoked, and writes no audit entry for it', async () => {
    const org = await createdOrg();
    const key = newKey(org.id, 'gone', 'admin', at(1));
    await store.issueKey(key, newHash(), ADMIN);
    await store.revokeKey(org.id, key.id, at(2), ADMIN);

    await expect(store.addMember({ orgId: org.id, walletAddress: wallet(), role: 'member', createdAt: at(3) }, { kind: 'key', keyId: key.id })).rejects.toThrow(ActorRevoked);
    expect((await store.listMembers(org.id)).total).toBe(1);
    expect(await actions(org.id)).toEqual(['org.created', 'member.added', 'key.issued', 'key.revoked']);
  });

  it('says whether any team of an org has a wallet', async () => {
    const org = await createdOrg();
    const other = await createdOrg();
    const member = wallet();
    const theirs: Team = { id: randomUUID(), orgId: org.id, name: 'payers', createdAt: at(1), updatedAt: at(1) };
    await store.createTeam(theirs, ADMIN);
    await store.addTeamWallet(org.id, { teamId: theirs.id, walletAddress: member, createdAt: at(2), consented: true }, ADMIN);

    expect(await store.hasTeamWallet(org.id, member)).toBe(true);
    expect(await store.hasTeamWallet(other.id, member)).toBe(false);
    expect(await store.hasTeamWallet(org.id, wallet())).toBe(false);
    expect(await store.hasTeamWallet('not-a-uuid', member)).toBe(false);
  });

  it("counts only consented memberships, records a consent once, and ends a membership on the wallet's word", async () => {
    const org = await createdOrg();
    const team = newTeam(org.id, 'payers');
    await store.createTeam(team, ADMIN);
    const member = wallet();
    await store.addTeamWallet(org.id, { teamId: team.id, walletAddress: member, createdAt: at(2), consented: false }, ADMIN);
    expect(await store.hasTeamWallet(org.id, member)).toBe(false);
    expect(await store.consentTeamWallet(org.id, team.id, member, ADMIN)).toBe(true);
    expect(await store.consentTeamWallet(org.id, team.id, member, ADMIN)).toBe(false);
    expect(await store.hasTeamWallet(org.id, member)).toBe(true);
    expect(await store.findTeamWallet(team.id, member)).toMatchObject({ consented: true });
    expect(await store.removeTeamWallet(org.id, team.id, member, { kind: 'wallet', wallet: member })).toBe(true);
    expect(await store.removeTeamWallet(org.id, team.id, member, { kind: 'wallet', wallet: member })).toBe(false);
    expect(await store.findTeamWallet(team.id, member)).toBeNull();
    const entries = (await store.audit(org.id, { offset: 3, limit: 10 })).items;
    expect(entries.map(({ actor, action }) => ({ actor, action }))).toEqual([
      { actor: ADMIN, action: 'team_wallet.added' },
      { actor: ADMIN, action: 'team_wallet.consented' },
      { actor: { kind: 'wallet', wallet: member }, action: 'team_wallet.left' },
    ]);
  });

  it('keeps members to their org', async () => {
    const shared = wallet();
    const one = await createdOrg(shared);
    const other = await createdOrg();
    expect(await store.findMember(other.id, shared)).toBeNull();
    await store.addMember({ orgId: other.id, walletAddress: shared, role: 'member', createdAt: at(5) }, ADMIN);
    expect(await store.findMember(one.id, shared)).toMatchObject({ role: 'owner' });
    expect(await store.findMember(other.id, shared)).toMatchObject({ role: 'member' });
    expect((await store.listMembers(one.id)).total).toBe(1);
    expect(await actions(one.id)).toEqual(['org.created', 'member.added']);
  });

  it('creates teams, lists them oldest first, refuses a name the org has and finds no team through another org', async () => {
    const org = await createdOrg();
    const other = await createdOrg();
    const later = newTeam(org.id, 'Research', at(30));
    const earlier = newTeam(org.id, 'Platform', at(10));
    await store.createTeam(later, ADMIN);
    await store.createTeam(earlier, ADMIN);
    expect(await store.findTeam(org.id, later.id)).toEqual(later);
    expect(await store.findTeam(other.id, later.id)).toBeNull();
    expect(await store.listTeams(org.id)).toEqual({ items: [earlier, later], total: 2 });
    expect(await store.listTeams(other.id)).toEqual({ items: [], total: 0 });
    await expect(store.createTeam(newTeam(org.id, 'Research'), ADMIN)).rejects.toThrow(AlreadyExists);
    await store.createTeam(newTeam(other.id, 'Research'), ADMIN);
    const audit = await store.audit(org.id, { offset: 2, limit: 10 });
    expect(audit.items.map(({ action, before, after }) => ({ action, before, after }))).toEqual([
      { action: 'team.created', before: null, after: { id: later.id, org_id: org.id, name: 'Research', created_at: later.createdAt.toISOString(), updated_at: later.updatedAt.toISOString() } },
      { action: 'team.created', before: null, after: expect.objectContaining({ id: earlier.id, name: 'Platform' }) },
    ]);
    expect(audit.total).toBe(4);
  });

  it('adds wallets to a team, lists them oldest first and refuses one in the team already', async () => {
    const org = await createdOrg();
    const team = newTeam(org.id, 'Platform');
    await store.createTeam(team, ADMIN);
    const later: TeamWallet = { teamId: team.id, walletAddress: wallet(), createdAt: at(40), consented: true };
    const earlier: TeamWallet = { teamId: team.id, walletAddress: wallet(), createdAt: at(30), consented: false };
    await store.addTeamWallet(org.id, later, ADMIN);
    await store.addTeamWallet(org.id, earlier, ADMIN);
    expect(await store.listTeamWallets(team.id)).toEqual({ items: [earlier, later], total: 2 });
    await expect(store.addTeamWallet(org.id, { ...later, createdAt: at(50) }, ADMIN)).rejects.toThrow(AlreadyExists);
    const entries = (await store.audit(org.id, { offset: 3, limit: 10 })).items;
    expect(entries.map(({ action, after }) => ({ action, after }))).toEqual([
      { action: 'team_wallet.added', after: { team_id: team.id, wallet_address: later.walletAddress, consented: true } },
      { action: 'team_wallet.added', after: { team_id: team.id, wallet_address: earlier.walletAddress, consented: false } },
    ]);
  });

  it('adds no wallet, and audits nothing, for a team of another org', async () => {
    const org = await createdOrg();
    const other = await createdOrg();
    const team = newTeam(other.id, 'Platform');
    await store.createTeam(team, ADMIN);
    await expect(store.addTeamWallet(org.id, { teamId: team.id, walletAddress: wallet(), createdAt: at(5), consented: true }, ADMIN)).rejects.toThrow();
    expect(await store.listTeamWallets(team.id)).toEqual({ items: [], total: 0 });
    expect(await actions(org.id)).toEqual(['org.created', 'member.added']);
    expect(await actions(other.id)).toEqual(['org.created', 'member.added', 'team.created']);
  });

  it('issues keys found by the hash of their secret, listed oldest first and never showing the hash', async () => {
    const org = await createdOrg();
    const later = newKey(org.id, 'ci', 'member', at(20));
    const earlier = newKey(org.id, 'ops', 'owner', at(10));
    const hash = newHash();
    await store.issueKey(earlier, newHash(), ADMIN);
    await store.issueKey(later, hash, { kind: 'key', keyId: earlier.id });
    expect(await keys.findActive(hash)).toEqual({ keyId: later.id, orgId: org.id, role: 'member' });
    expect(await keys.findActive(newHash())).toBeNull();
    expect(await store.findKey(org.id, later.id)).toEqual(later);
    expect(await store.listKeys(org.id)).toEqual({ items: [earlier, later], total: 2 });
    const [issued] = (await store.audit(org.id, { offset: 3, limit: 1 })).items;
    expect(issued).toMatchObject({
      actor: { kind: 'key', keyId: earlier.id },
      action: 'key.issued',
      before: null,
      after: { id: later.id, name: 'ci', role: 'member', created_at: later.createdAt.toISOString(), revoked_at: null },
    });
    expect(JSON.stringify(issued)).not.toContain(hash.toString('hex'));
    expect(JSON.stringify(issued)).not.toContain(hash.toString('base64'));
  });

  it('refuses a second key with the same hash, or with the name of a live key of the org', async () => {
    const org = await createdOrg();
    const other = await createdOrg();
    const hash = newHash();
    await store.issueKey(newKey(org.id, 'ci'), hash, ADMIN);
    await expect(store.issueKey(newKey(other.id, 'deploy'), hash, ADMIN)).rejects.toThrow(AlreadyExists);
    await expect(store.issueKey(newKey(org.id, 'ci'), newHash(), ADMIN)).rejects.toThrow(AlreadyExists);
    await store.issueKey(newKey(other.id, 'ci'), newHash(), ADMIN);
    expect((await store.listKeys(org.id)).total).toBe(1);
    expect(await actions(org.id)).toEqual(['org.created', 'member.added', 'key.issued']);
  });

  it('revokes a key once: it is no longer found by its hash, and its name is free again', async () => {
    const org = await createdOrg();
    const key = newKey(org.id, 'ci');
    const hash = newHash();
    await store.issueKey(key, hash, ADMIN);
    // A key may revoke itself: its own change takes the row's share lock, then the update's.
    const actor: Actor = { kind: 'key', keyId: key.id };
    expect(await store.revokeKey(org.id, key.id, at(60), actor)).toBe(true);
    expect(await store.revokeKey(org.id, key.id, at(70), ADMIN)).toBe(false);
    expect(await keys.findActive(hash)).toBeNull();
    expect(await store.findKey(org.id, key.id)).toEqual({ ...key, revokedAt: at(60) });
    const entries = (await store.audit(org.id, { offset: 0, limit: 10 })).items;
    expect(entries.map((entry) => entry.action)).toEqual(['org.created', 'member.added', 'key.issued', 'key.revoked']);
    expect(entries[3]).toMatchObject({ actor, before: { id: key.id, revoked_at: null }, after: { id: key.id, name: 'ci', revoked_at: at(60).toISOString() } });
    await store.issueKey(newKey(org.id, 'ci'), newHash(), ADMIN);
    expect((await store.listKeys(org.id)).total).toBe(2);
  });

  it('revokes no key through another org, nor an unknown one', async () => {
    const org = await createdOrg();
    const other = await createdOrg();
    const key = newKey(org.id, 'ci');
    const hash = newHash();
    await store.issueKey(key, hash, ADMIN);
    expect(await store.findKey(other.id, key.id)).toBeNull();
    expect(await store.revokeKey(other.id, key.id, at(60), ADMIN)).toBe(false);
    expect(await store.revokeKey(org.id, randomUUID(), at(60), ADMIN)).toBe(false);
    expect(await keys.findActive(hash)).toEqual({ keyId: key.id, orgId: org.id, role: 'admin' });
    expect(await actions(other.id)).toEqual(['org.created', 'member.added']);
  });

  it('pages the audit oldest first by offset and limit, in the order the changes were made', async () => {
    const org = await createdOrg();
    // Creation times out of order: the audit follows the order of the changes, not the resources' times.
    for (let i = 0; i < 5; i += 1) await store.createTeam(newTeam(org.id, `team-${i}`, at(100 - i)), ADMIN);
    const names = async (offset: number, limit: number) => {
      const page = await store.audit(org.id, { offset, limit });
      return { total: page.total, names: page.items.map((entry) => (entry.after as { name?: string }).name ?? entry.action) };
    };
    expect(await names(0, 3)).toEqual({ total: 7, names: ['Acme', 'member.added', 'team-0'] });
    expect(await names(3, 3)).toEqual({ total: 7, names: ['team-1', 'team-2', 'team-3'] });
    expect(await names(6, 3)).toEqual({ total: 7, names: ['team-4'] });
    expect(await names(9, 3)).toEqual({ total: 7, names: [] });
    const all = (await store.audit(org.id, { offset: 0, limit: 10 })).items;
    const times = all.map((entry) => entry.at.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });
}
