import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { serviceAvailable } from '../../support/services';
import { gatewayOnStorage, pgliteStorage, postgresStorage, type TestStorage } from '../../support/storage-env';

/**
 * Adversarial review of the enterprise API (docs/decisions.md, "Enterprise"). Every test here
 * failed before the mends they name.
 */
const OWNER = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

function attacks(storage: () => Promise<TestStorage>): void {
  const gatewayOf = gatewayOnStorage(storage, { GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });

  async function call(method: string, path: string, token?: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${gatewayOf().url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function newOrg(): Promise<string> {
    return (await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'Acme', owner_wallet: OWNER })).body.id as string;
  }

  describe('names the database refuses are 400, never 500', () => {
    it.each([
      ['a NUL character (text columns cannot hold it)', 'a\u0000b'],
      ['a lone surrogate (the audit jsonb refuses \\ud800)', 'a\ud800b'],
      ['128 emoji with variation selectors (128 for class-validator, 256 for char_length)', '\u2764\uFE0F'.repeat(128)],
    ])('%s: org, team and key names', async (_, name) => {
      const orgId = await newOrg();
      const answers = [
        await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name, owner_wallet: OWNER }),
        await call('POST', `/v1/orgs/${orgId}/teams`, TEST_ADMIN_TOKEN, { name }),
        await call('POST', `/v1/orgs/${orgId}/api-keys`, TEST_ADMIN_TOKEN, { name, role: 'member' }),
      ];
      for (const answer of answers) {
        expect(answer.status).not.toBe(500);
        expect([201, 400]).toContain(answer.status);
      }
    });
  });

  describe('audit paging', () => {
    it.each(['99999999999999999999', '200000000000000000'])('?page=%s is a 400 or an empty page, never a 500 (OFFSET overflows bigint / prints as 5e+21)', async (page) => {
      const orgId = await newOrg();
      const res = await call('GET', `/v1/orgs/${orgId}/audit?page=${page}`, TEST_ADMIN_TOKEN);
      expect(res.status).not.toBe(500);
      if (res.status === 200) expect(res.body.data).toEqual([]);
      else expect(res.status).toBe(400);
    });
  });

  describe('ids in paths', () => {
    it('an upper-case org id (accepted for the admin token) is not echoed or audited in a non-canonical form', async () => {
      const orgId = await newOrg();
      const team = await call('POST', `/v1/orgs/${orgId.toUpperCase()}/teams`, TEST_ADMIN_TOKEN, { name: 'upper' });
      expect(team.status).toBe(201);
      expect(team.body.org_id).toBe(orgId);
      const audit = await call('GET', `/v1/orgs/${orgId}/audit`, TEST_ADMIN_TOKEN);
      const created = (audit.body.data as Array<{ action: string; after: { org_id?: string } }>).find((entry) => entry.action === 'team.created');
      expect(created?.after.org_id).toBe(orgId);
    });
  });
}

describe('enterprise attacks on embedded PGlite', () => {
  attacks(pgliteStorage);

  describe('revoked-key race', () => {
    const gatewayOf = gatewayOnStorage(pgliteStorage, { GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });

    async function call(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
      const res = await fetch(`${gatewayOf().url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }

    it('no change made with a key lands after that key was revoked (it mints admin keys that outlive it)', async () => {
      const orgId = (await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'Acme', owner_wallet: OWNER })).body.id as string;
      let late: Array<{ action: string; after: unknown }> = [];
      for (let round = 0; round < 3 && late.length === 0; round++) {
        const victim = await call('POST', `/v1/orgs/${orgId}/api-keys`, TEST_ADMIN_TOKEN, { name: `victim${round}`, role: 'admin' });
        const victimId = victim.body.id as string;
        const minting = Array.from({ length: 10 }, (_, i) => call('POST', `/v1/orgs/${orgId}/api-keys`, victim.body.key as string, { name: `minted${round}-${i}`, role: 'admin' }));
        await Promise.all([...minting, call('DELETE', `/v1/orgs/${orgId}/api-keys/${victimId}`, TEST_ADMIN_TOKEN)]);
        const entries: Array<{ actor: string; action: string; at: string; before: { id?: string } | null; after: unknown }> = [];
        for (let page = 1; ; page++) {
          const data = (await call('GET', `/v1/orgs/${orgId}/audit?page=${page}`, TEST_ADMIN_TOKEN)).body.data as typeof entries;
          entries.push(...data);
          if (data.length < 50) break;
        }
        const revokedAt = entries.find((entry) => entry.action === 'key.revoked' && entry.before?.id === victimId)!.at;
        late = entries.filter((entry) => entry.actor === `key:${victimId}` && entry.at > revokedAt);
      }
      expect(late).toEqual([]);
    });
  });
});

(serviceAvailable('postgres') ? describe : describe.skip)('enterprise attacks on PostgreSQL (local server)', () => {
  attacks(postgresStorage);
});
