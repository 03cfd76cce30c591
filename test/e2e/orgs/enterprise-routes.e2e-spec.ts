import { Keypair } from '@solana/web3.js';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { serviceAvailable } from '../../support/services';
import { joinConsent } from '../../support/team-consent';
import { gatewayOnStorage, pgliteStorage, postgresStorage, type TestStorage } from '../../support/storage-env';

const OWNER = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const ALICE = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const BOB = 'HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH';
const CAROL = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const UNKNOWN_ORG = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { type: string; code: string; message: string } };
}

function client(gateway: () => RunningGateway) {
  return async (method: string, path: string, token?: string, body?: unknown): Promise<Answer> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${gateway().url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
}

function enterpriseRoutes(storage: () => Promise<TestStorage>): void {
  const gatewayOf = gatewayOnStorage(storage, { GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_ENTERPRISE_RATE_LIMIT: '10000' });
  const call = client(gatewayOf);

  /** A new org owned by OWNER, and keys of each role for it. */
  async function orgWithKeys(): Promise<{ orgId: string; owner: string; admin: string; member: string }> {
    const created = await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'Acme', owner_wallet: OWNER });
    const orgId = created.body.id as string;
    const key = async (role: string) => (await call('POST', `/v1/orgs/${orgId}/api-keys`, TEST_ADMIN_TOKEN, { name: `${role} key`, role })).body.key as string;
    return { orgId, owner: await key('owner'), admin: await key('admin'), member: await key('member') };
  }

  describe('orgs', () => {
    it('POST /v1/orgs with the admin token: 201 with the org, the owner wallet a member with role owner', async () => {
      const res = await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'Acme', owner_wallet: OWNER });

      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Acme', created_at: expect.any(String), updated_at: expect.any(String) });
      const members = await call('GET', `/v1/orgs/${res.body.id as string}/members`, TEST_ADMIN_TOKEN);
      expect(members.body).toEqual({ object: 'list', data: [{ wallet_address: OWNER, role: 'owner' }], total: 1 });
    });

    it.each([
      ['no credentials', undefined, 401, 'admin.unauthorized'],
      ['a wrong admin token', 'wrong-token', 401, 'admin.unauthorized'],
    ])('POST /v1/orgs with %s: %s', async (_, token, status, code) => {
      const res = await call('POST', '/v1/orgs', token, { name: 'Acme', owner_wallet: OWNER });
      expect(res.status).toBe(status);
      expect(res.body.error?.code).toBe(code);
    });

    it('POST /v1/orgs refuses an org key: creating orgs is the admin token only', async () => {
      const { owner } = await orgWithKeys();
      const res = await call('POST', '/v1/orgs', owner, { name: 'Other', owner_wallet: OWNER });
      expect(res.status).toBe(401);
    });

    it.each([
      ['an empty name', { name: '', owner_wallet: OWNER }, /^name /],
      ['a name of 129 characters', { name: 'x'.repeat(129), owner_wallet: OWNER }, /^name /],
      ['a malformed wallet', { name: 'Acme', owner_wallet: 'not-base58-0OIl' }, /owner_wallet/],
      ['an unknown field', { name: 'Acme', owner_wallet: OWNER, plan: 'gold' }, /plan/],
    ])('POST /v1/orgs with %s: 400 bad_request naming the field', async (_, body, message) => {
      const res = await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'bad_request', code: 'request.invalid_body', message: expect.stringMatching(message) });
    });

    it('GET /v1/orgs lists every org, oldest first, to the admin token only', async () => {
      const first = await orgWithKeys();
      const second = await orgWithKeys();
      const res = await call('GET', '/v1/orgs', TEST_ADMIN_TOKEN);
      expect(res.status).toBe(200);
      const ids = (res.body.data as Array<{ id: string }>).map((org) => org.id);
      expect(ids.indexOf(first.orgId)).toBeLessThan(ids.indexOf(second.orgId));
      expect(ids.indexOf(first.orgId)).toBeGreaterThanOrEqual(0);
      expect(res.body).toMatchObject({ object: 'list', total: ids.length });
      expect((res.body.data as unknown[])[ids.indexOf(first.orgId)]).toEqual({ id: first.orgId, name: 'Acme', created_at: expect.any(String), updated_at: expect.any(String) });
      for (const token of [first.owner, undefined]) expect((await call('GET', '/v1/orgs', token)).body.error?.code).toBe('admin.unauthorized');
    });

    it('GET /v1/whoami says what the credential is: the admin token, or a key with its org, id and role; a revoked key is 401', async () => {
      const { orgId, owner, member } = await orgWithKeys();
      expect(await call('GET', '/v1/whoami', TEST_ADMIN_TOKEN)).toEqual({ status: 200, body: { kind: 'admin' } });
      const keys = (await call('GET', `/v1/orgs/${orgId}/api-keys`, owner)).body.data as Array<{ id: string; role: string }>;
      const memberId = keys.find((key) => key.role === 'member')!.id;
      expect(await call('GET', '/v1/whoami', member)).toEqual({ status: 200, body: { kind: 'org_key', org_id: orgId, key_id: memberId, role: 'member' } });
      await call('DELETE', `/v1/orgs/${orgId}/api-keys/${memberId}`, owner);
      expect((await call('GET', '/v1/whoami', member)).body.error?.code).toBe('org.unauthorized');
      expect((await call('GET', '/v1/whoami')).status).toBe(401);
    });

    it('GET /v1/orgs/{org_id}: the admin token and a member key read it; an unknown or malformed id is 404', async () => {
      const { orgId, member } = await orgWithKeys();
      expect((await call('GET', `/v1/orgs/${orgId}`, TEST_ADMIN_TOKEN)).body).toMatchObject({ id: orgId, name: 'Acme' });
      expect((await call('GET', `/v1/orgs/${orgId}`, member)).status).toBe(200);
      for (const id of [UNKNOWN_ORG, 'not-a-uuid']) {
        const res = await call('GET', `/v1/orgs/${id}`, TEST_ADMIN_TOKEN);
        expect(res.status).toBe(404);
        expect(res.body.error?.code).toBe('org.not_found');
      }
    });

    it('a key of another org gets the 404 of a missing org, whatever its role', async () => {
      const first = await orgWithKeys();
      const second = await orgWithKeys();
      const res = await call('GET', `/v1/orgs/${second.orgId}/members`, first.owner);
      expect(res.status).toBe(404);
      expect(res.body.error?.code).toBe('org.not_found');
    });
  });

  describe('members', () => {
    it('an admin key adds a member; the list shows it; the same wallet again is 400', async () => {
      const { orgId, admin } = await orgWithKeys();
      const res = await call('POST', `/v1/orgs/${orgId}/members`, admin, { wallet_address: ALICE, role: 'member' });
      expect(res).toEqual({ status: 201, body: { wallet_address: ALICE, role: 'member' } });

      const list = await call('GET', `/v1/orgs/${orgId}/members`, admin);
      expect(list.body).toEqual({
        object: 'list',
        data: [
          { wallet_address: OWNER, role: 'owner' },
          { wallet_address: ALICE, role: 'member' },
        ],
        total: 2,
      });
      const again = await call('POST', `/v1/orgs/${orgId}/members`, admin, { wallet_address: ALICE, role: 'member' });
      expect(again.status).toBe(400);
      expect(again.body.error?.code).toBe('org.already_exists');
    });

    it('only owners (and the admin token) assign owner or admin; a member key cannot add members at all', async () => {
      const { orgId, owner, admin, member } = await orgWithKeys();
      for (const role of ['admin', 'owner']) {
        const refused = await call('POST', `/v1/orgs/${orgId}/members`, admin, { wallet_address: BOB, role });
        expect(refused.status).toBe(403);
        expect(refused.body.error?.code).toBe('org.role_not_grantable');
      }
      expect((await call('POST', `/v1/orgs/${orgId}/members`, owner, { wallet_address: BOB, role: 'admin' })).status).toBe(201);
      expect((await call('POST', `/v1/orgs/${orgId}/members`, TEST_ADMIN_TOKEN, { wallet_address: CAROL, role: 'owner' })).status).toBe(201);
      const byMember = await call('POST', `/v1/orgs/${orgId}/members`, member, { wallet_address: ALICE, role: 'member' });
      expect(byMember.status).toBe(403);
      expect(byMember.body.error?.code).toBe('org.role_insufficient');
    });

    it.each([
      ['a malformed wallet', { wallet_address: 'abc', role: 'member' }],
      ['an unknown role', { wallet_address: ALICE, role: 'root' }],
      ['a missing role', { wallet_address: ALICE }],
    ])('refuses %s with 400', async (_, body) => {
      const { orgId } = await orgWithKeys();
      const res = await call('POST', `/v1/orgs/${orgId}/members`, TEST_ADMIN_TOKEN, body);
      expect(res.status).toBe(400);
      expect(res.body.error?.code).toBe('request.invalid_body');
    });
  });

  describe('teams and team wallets', () => {
    it('creates a team (201, the Team), lists it, refuses the same name, adds and lists wallets', async () => {
      const { orgId, admin, member } = await orgWithKeys();
      const team = await call('POST', `/v1/orgs/${orgId}/teams`, admin, { name: 'search' });
      expect(team.status).toBe(201);
      expect(team.body).toEqual({ id: expect.any(String), org_id: orgId, name: 'search', created_at: expect.any(String), updated_at: expect.any(String) });
      const teamId = team.body.id as string;

      expect((await call('GET', `/v1/orgs/${orgId}/teams`, member)).body).toMatchObject({ object: 'list', total: 1, data: [{ id: teamId, name: 'search' }] });
      expect((await call('POST', `/v1/orgs/${orgId}/teams`, admin, { name: 'search' })).body.error?.code).toBe('org.already_exists');

      // An org key adds a wallet with the wallet's own consent (docs/decisions.md, "Whose word makes a team").
      const alice = Keypair.generate();
      const added = { wallet_address: alice.publicKey.toBase58(), consent_signature: joinConsent(alice, orgId, teamId) };
      const wallet = await call('POST', `/v1/orgs/${orgId}/teams/${teamId}/wallets`, admin, added);
      expect(wallet).toEqual({ status: 201, body: { wallet_address: added.wallet_address, consented: true } });
      expect((await call('GET', `/v1/orgs/${orgId}/teams/${teamId}/wallets`, member)).body).toEqual({ object: 'list', data: [{ wallet_address: added.wallet_address, consented: true }], total: 1 });
      expect((await call('POST', `/v1/orgs/${orgId}/teams/${teamId}/wallets`, admin, added)).status).toBe(400);
    });

    it('a team of another org, or no team, is 404 team not found', async () => {
      const first = await orgWithKeys();
      const second = await orgWithKeys();
      const team = await call('POST', `/v1/orgs/${second.orgId}/teams`, TEST_ADMIN_TOKEN, { name: 'theirs' });
      for (const teamId of [team.body.id as string, UNKNOWN_ORG, 'x']) {
        const res = await call('POST', `/v1/orgs/${first.orgId}/teams/${teamId}/wallets`, TEST_ADMIN_TOKEN, { wallet_address: ALICE });
        expect(res.status).toBe(404);
        expect(res.body.error?.code).toBe('org.team_not_found');
      }
    });

    it('a member key cannot create teams or add wallets (403)', async () => {
      const { orgId, member } = await orgWithKeys();
      expect((await call('POST', `/v1/orgs/${orgId}/teams`, member, { name: 'x' })).status).toBe(403);
    });
  });

  describe('API keys', () => {
    it('issues a key once (gwk_ and 43 characters), lists keys without secrets, and a revoked key is refused at once', async () => {
      const { orgId } = await orgWithKeys();
      const issued = await call('POST', `/v1/orgs/${orgId}/api-keys`, TEST_ADMIN_TOKEN, { name: 'ci', role: 'member' });
      expect(issued.status).toBe(201);
      expect(issued.body).toEqual({ id: expect.any(String), name: 'ci', role: 'member', key: expect.stringMatching(/^gwk_[A-Za-z0-9_-]{43}$/), created_at: expect.any(String) });
      const key = issued.body.key as string;
      expect((await call('GET', `/v1/orgs/${orgId}/teams`, key)).status).toBe(200);

      const list = await call('GET', `/v1/orgs/${orgId}/api-keys`, TEST_ADMIN_TOKEN);
      expect(JSON.stringify(list.body)).not.toContain(key);
      expect(list.body.data).toEqual(expect.arrayContaining([{ id: issued.body.id, name: 'ci', role: 'member', created_at: expect.any(String), revoked_at: null }]));

      const revoked = await call('DELETE', `/v1/orgs/${orgId}/api-keys/${issued.body.id as string}`, TEST_ADMIN_TOKEN);
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).toEqual(expect.any(String));
      const refused = await call('GET', `/v1/orgs/${orgId}/teams`, key);
      expect(refused.status).toBe(401);
      expect(refused.body.error?.code).toBe('org.unauthorized');
    });

    it('an admin key issues member and admin keys, not owner keys; only owners revoke owner keys', async () => {
      const { orgId, owner, admin } = await orgWithKeys();
      expect((await call('POST', `/v1/orgs/${orgId}/api-keys`, admin, { name: 'a2', role: 'admin' })).status).toBe(201);
      const ownerKey = await call('POST', `/v1/orgs/${orgId}/api-keys`, admin, { name: 'o2', role: 'owner' });
      expect(ownerKey.status).toBe(403);
      expect(ownerKey.body.error?.code).toBe('org.role_not_grantable');

      const issued = await call('POST', `/v1/orgs/${orgId}/api-keys`, owner, { name: 'o3', role: 'owner' });
      expect(issued.status).toBe(201);
      expect((await call('DELETE', `/v1/orgs/${orgId}/api-keys/${issued.body.id as string}`, admin)).status).toBe(403);
      expect((await call('DELETE', `/v1/orgs/${orgId}/api-keys/${issued.body.id as string}`, owner)).status).toBe(200);
      expect((await call('DELETE', `/v1/orgs/${orgId}/api-keys/${UNKNOWN_ORG}`, owner)).body.error?.code).toBe('org.key_not_found');
    });
  });

  describe('budgets', () => {
    it('PUT replaces the team budget (an omitted window is uncapped); GET returns the limits and the spend of the current windows', async () => {
      const { orgId, admin } = await orgWithKeys();
      const teamId = (await call('POST', `/v1/orgs/${orgId}/teams`, admin, { name: 'search' })).body.id as string;

      const put = await call('PUT', `/v1/orgs/${orgId}/teams/${teamId}/budget`, admin, { hourly: 1.5, daily: 10 });
      expect(put).toEqual({ status: 200, body: { hourly: 1.5, daily: 10, monthly: null, hourly_spend: '0.000000', daily_spend: '0.000000', monthly_spend: '0.000000' } });
      await call('PUT', `/v1/orgs/${orgId}/teams/${teamId}/budget`, admin, { monthly: 0.000001 });
      expect((await call('GET', `/v1/orgs/${orgId}/teams/${teamId}/budget`, TEST_ADMIN_TOKEN)).body).toMatchObject({ hourly: null, daily: null, monthly: 0.000001 });
    });

    it.each([
      ['seven decimals', { daily: 0.0000001 }],
      ['a negative amount', { daily: -1 }],
      ['a string', { daily: '10' }],
      ['an unknown window', { weekly: 5 }],
    ])('refuses %s with 400', async (_, body) => {
      const { orgId, admin } = await orgWithKeys();
      const teamId = (await call('POST', `/v1/orgs/${orgId}/teams`, admin, { name: 'search' })).body.id as string;
      const res = await call('PUT', `/v1/orgs/${orgId}/teams/${teamId}/budget`, admin, body);
      expect(res.status).toBe(400);
      expect(res.body.error?.code).toBe('request.invalid_body');
    });

    it('team budgets need an admin key of that org; a member key is 403, another team 404', async () => {
      const { orgId, member } = await orgWithKeys();
      const teamId = (await call('POST', `/v1/orgs/${orgId}/teams`, TEST_ADMIN_TOKEN, { name: 'search' })).body.id as string;
      expect((await call('GET', `/v1/orgs/${orgId}/teams/${teamId}/budget`, member)).status).toBe(403);
      expect((await call('PUT', `/v1/orgs/${orgId}/teams/${UNKNOWN_ORG}/budget`, TEST_ADMIN_TOKEN, { daily: 1 })).body.error?.code).toBe('org.team_not_found');
    });

    it('wallet budgets take the admin token only: an org key is 403, a malformed wallet 400', async () => {
      const { owner } = await orgWithKeys();
      const put = await call('PUT', `/v1/wallets/${ALICE}/budget`, TEST_ADMIN_TOKEN, { daily: 2.25 });
      expect(put).toEqual({ status: 200, body: { hourly: null, daily: 2.25, monthly: null, hourly_spend: '0.000000', daily_spend: '0.000000', monthly_spend: '0.000000' } });
      expect((await call('GET', `/v1/wallets/${ALICE}/budget`, TEST_ADMIN_TOKEN)).body).toMatchObject({ daily: 2.25 });

      const byKey = await call('GET', `/v1/wallets/${ALICE}/budget`, owner);
      expect(byKey.status).toBe(403);
      expect(byKey.body.error?.code).toBe('org.role_insufficient');
      expect((await call('GET', '/v1/wallets/not-a-wallet/budget', TEST_ADMIN_TOKEN)).body.error?.code).toBe('request.invalid_path');
      expect((await call('GET', `/v1/wallets/${BOB}/budget`, undefined)).status).toBe(401);
    });
  });

  describe('audit', () => {
    it('records every change with who, what, when, before and after, oldest first; owners and the admin token read it', async () => {
      const { orgId, owner, admin } = await orgWithKeys();
      await call('POST', `/v1/orgs/${orgId}/members`, admin, { wallet_address: ALICE, role: 'member' });

      const audit = await call('GET', `/v1/orgs/${orgId}/audit`, owner);
      expect(audit.status).toBe(200);
      const actions = (audit.body.data as Array<{ action: string; actor: string }>).map((entry) => entry.action);
      expect(actions).toEqual(['org.created', 'member.added', 'key.issued', 'key.issued', 'key.issued', 'member.added']);
      const added = (audit.body.data as Array<Record<string, unknown>>)[5];
      expect(added).toMatchObject({ actor: expect.stringMatching(/^key:/), before: null, after: { wallet_address: ALICE, role: 'member' }, at: expect.any(String) });
      expect(JSON.stringify(audit.body)).not.toMatch(/gwk_/);

      expect((await call('GET', `/v1/orgs/${orgId}/audit`, admin)).status).toBe(403);
      expect((await call('GET', `/v1/orgs/${orgId}/audit`, TEST_ADMIN_TOKEN)).status).toBe(200);
      expect((await call('GET', `/v1/orgs/${orgId}/audit?page=0`, owner)).body.error?.code).toBe('request.invalid_query');
      expect((await call('GET', `/v1/orgs/${orgId}/audit?page=2`, owner)).body).toMatchObject({ data: [], total: 6 });
    });
  });
}

describe('enterprise routes on embedded PGlite', () => {
  enterpriseRoutes(pgliteStorage);
});

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('enterprise routes on PostgreSQL (local server)', () => {
  enterpriseRoutes(postgresStorage);
});

describe('enterprise routes without storage or without an admin token', () => {
  it('GW_STORAGE=none: 503 org.storage_not_configured', async () => {
    const gateway = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    try {
      const res = await client(() => gateway)('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'Acme', owner_wallet: OWNER });
      expect(res.status).toBe(503);
      expect(res.body.error?.code).toBe('org.storage_not_configured');
    } finally {
      await gateway.close();
    }
  });

  it('GW_ADMIN_TOKEN unset: 503 admin endpoint not configured on every route', async () => {
    const gateway = await startTestGateway({ GW_ADMIN_TOKEN: undefined });
    try {
      const call = client(() => gateway);
      for (const [method, path] of [
        ['POST', '/v1/orgs'],
        ['GET', `/v1/orgs/${UNKNOWN_ORG}`],
        ['GET', `/v1/orgs/${UNKNOWN_ORG}/audit`],
      ]) {
        const res = await call(method, path, undefined, method === 'POST' ? { name: 'Acme', owner_wallet: OWNER } : undefined);
        expect(res.status).toBe(503);
        expect(res.body.error?.message).toBe('admin endpoint not configured');
      }
    } finally {
      await gateway.close();
    }
  });
});
