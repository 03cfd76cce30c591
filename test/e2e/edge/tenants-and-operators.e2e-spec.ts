import { Keypair } from '@solana/web3.js';
import { Database } from '../../../src/adapters/postgres/database';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { requestFrom } from '../../support/raw-http';
import { ScriptedResolver } from '../../support/scripted-resolver';
import { pgliteStorage } from '../../support/storage-env';
import { joinConsent, leaveConsent } from '../../support/team-consent';
import { TestRoutesModule } from '../../support/test-routes.module';

interface Answer {
  status: number;
  body: { error?: { code: string; message: string }; [field: string]: unknown };
}

/**
 * Rows 6, 8, 9 and 10 of the attack table: no tenant reaches a wallet it does not own, odd DTO
 * bodies are 400s, wrong admin tokens are throttled, and the operator's own changes are audited.
 */
describe('the open edge: tenants and operators', () => {
  const resolver = new ScriptedResolver();
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { hostResolver: resolver, imports: [TestRoutesModule] });
  });
  afterAll(() => gateway.close());

  async function call(method: string, path: string, token?: string, body?: unknown, from = '127.0.0.1'): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) };
    const res = await requestFrom(from, `${gateway.url}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: res.status, body: res.body.startsWith('{') ? (JSON.parse(res.body) as Answer['body']) : {} };
  }

  async function orgWithAdminKey(): Promise<{ org: string; key: string; team: string }> {
    const org = (await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'hostile', owner_wallet: Keypair.generate().publicKey.toBase58() })).body.id as string;
    const key = (await call('POST', `/v1/orgs/${org}/api-keys`, TEST_ADMIN_TOKEN, { name: 'a', role: 'admin' })).body.key as string;
    const team = (await call('POST', `/v1/orgs/${org}/teams`, key, { name: 'trap' })).body.id as string;
    return { org, key, team };
  }

  it("row 6: an org key cannot put a wallet in its team without the wallet's signature; the wallet leaves on its own word", async () => {
    const { org, key, team } = await orgWithAdminKey();
    const victim = Keypair.generate();
    const address = victim.publicKey.toBase58();
    const wallets = `/v1/orgs/${org}/teams/${team}/wallets`;
    expect((await call('POST', wallets, key, { wallet_address: address })).body.error?.code).toBe('org.consent_required');
    const forged = joinConsent(Keypair.generate(), org, team);
    expect((await call('POST', wallets, key, { wallet_address: address, consent_signature: forged })).body.error?.code).toBe('org.consent_invalid');
    expect((await call('PUT', `/v1/orgs/${org}/teams/${team}/budget`, key, { daily: 0 })).status).toBe(200);
    expect((await call('GET', `/v1/wallets/${address}/stats`, key)).body.error?.code).toBe('org.wallet_not_found');

    // With the wallet's word: a member, its stats readable by the org.
    expect(await call('POST', wallets, key, { wallet_address: address, consent_signature: joinConsent(victim, org, team) })).toEqual({
      status: 201,
      body: { wallet_address: address, consented: true },
    });
    expect((await call('GET', `/v1/wallets/${address}/stats`, key)).status).toBe(200);

    // It leaves on its own signed word, with no key; a signature of anything else is refused.
    const leave = `${wallets}/${address}/leave`;
    expect((await call('POST', leave, undefined, { consent_signature: joinConsent(victim, org, team) })).body.error?.code).toBe('org.consent_invalid');
    expect(await call('POST', leave, undefined, { consent_signature: leaveConsent(victim, org, team) })).toEqual({ status: 200, body: { wallet_address: address, consented: true } });
    expect((await call('GET', `/v1/wallets/${address}/stats`, key)).body.error?.code).toBe('org.wallet_not_found');
    expect((await call('POST', leave, undefined, { consent_signature: leaveConsent(victim, org, team) })).body.error?.code).toBe('org.team_wallet_not_found');
    expect((await call('GET', `/v1/orgs/${org}/audit`, TEST_ADMIN_TOKEN)).body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ actor: `wallet:${address}`, action: 'team_wallet.left', after: null })]),
    );

    // A membership from before the rule (an org key added it, nobody signed) counts for nothing until the wallet signs: then 200.
    const legacy = Keypair.generate();
    const legacyAddress = legacy.publicKey.toBase58();
    expect((await call('POST', wallets, TEST_ADMIN_TOKEN, { wallet_address: legacyAddress })).status).toBe(201);
    await gateway.app.get(Database).dataSource.query('UPDATE team_wallets SET consented = false WHERE wallet_address = $1', [legacyAddress]);
    expect((await call('GET', `/v1/wallets/${legacyAddress}/stats`, key)).status).toBe(404);
    expect(await call('POST', wallets, key, { wallet_address: legacyAddress, consent_signature: joinConsent(legacy, org, team) })).toEqual({
      status: 200,
      body: { wallet_address: legacyAddress, consented: true },
    });
    expect((await call('GET', `/v1/wallets/${legacyAddress}/stats`, key)).status).toBe(200);
  });

  it('row 8: a 300,000-element array or 20,000-deep nesting is a 400 (or the route limit 413), never a 500', async () => {
    const huge = `{"name":"x","owner_wallet":[${'1,'.repeat(299_999)}1]}`;
    expect((await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, huge)).body.error?.code).toBe('request.body_too_large');
    const deep = `{"name":"x","owner_wallet":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    expect((await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, deep)).body.error?.code).toBe('request.nesting_too_deep');
    // Past the edge, on a route that takes a megabyte, the DTO pipe itself answers 400.
    const members = await call('POST', '/test/teams', undefined, `{"name":"x","members":[${'1,'.repeat(299_999)}1]}`);
    expect({ status: members.status, code: members.body.error?.code }).toEqual({ status: 400, code: 'request.invalid_body' });
  });

  it('row 9: past 10 wrong admin tokens a minute, admin routes answer 429 to any token from that network; /health and /metrics never 429', async () => {
    const from = '127.0.0.5';
    const wrong = 'not-the-admin-token-0123456789';
    const statuses: number[] = [];
    for (let i = 0; i < 400; i++) statuses.push((await call('GET', '/v1/audit', wrong, undefined, from)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(new Set(statuses.slice(10))).toEqual(new Set([429]));
    // Even the right token, for the rest of the window: guessing on learns nothing.
    expect((await call('GET', '/v1/audit', TEST_ADMIN_TOKEN, undefined, from)).status).toBe(429);
    expect((await call('POST', '/v1/services/register', TEST_ADMIN_TOKEN, {}, from)).status).toBe(429);
    expect(await call('GET', '/health', TEST_ADMIN_TOKEN, undefined, from)).toEqual({ status: 200, body: { status: expect.any(String) } });
    expect((await call('GET', '/metrics', TEST_ADMIN_TOKEN, undefined, from)).status).toBe(401);
    // Another network is not affected.
    expect((await call('GET', '/v1/audit', TEST_ADMIN_TOKEN, undefined, '127.0.0.6')).status).toBe(200);
    expect((await call('GET', '/health', TEST_ADMIN_TOKEN, undefined, '127.0.0.6')).body).toHaveProperty('version');
  });

  it('row 10: a wallet budget change and a service registration are in the operator audit (GET /v1/audit)', async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    expect((await call('PUT', `/v1/wallets/${wallet}/budget`, TEST_ADMIN_TOKEN, { daily: 1.5 })).status).toBe(200);
    expect((await call('PUT', `/v1/wallets/${wallet}/budget`, TEST_ADMIN_TOKEN, { hourly: 0.25 })).status).toBe(200);
    resolver.answer('audited.test', ['93.184.216.34']);
    const service = { id: 'audited', name: 'Audited', category: 'Data', endpoint: 'https://audited.test/run', x402_enabled: false, price_per_request_usdc: '0.002' };
    expect((await call('POST', '/v1/services/register', TEST_ADMIN_TOKEN, service)).status).toBe(201);
    const audit = await call('GET', '/v1/audit', TEST_ADMIN_TOKEN, undefined, '127.0.0.7');
    expect(audit.status).toBe(200);
    const entries = (audit.body.data as Array<Record<string, unknown>>).map(({ actor, action, before, after }) => ({ actor, action, before, after }));
    expect(entries).toEqual([
      { actor: 'admin', action: 'budget.set', before: null, after: { wallet, hourly: null, daily: '1.500000', monthly: null } },
      { actor: 'admin', action: 'budget.set', before: { wallet, hourly: null, daily: '1.500000', monthly: null }, after: { wallet, hourly: '0.250000', daily: null, monthly: null } },
      { actor: 'admin', action: 'service.registered', before: null, after: expect.objectContaining({ id: 'audited', endpoint: 'https://audited.test/run', price_per_request_usdc: 0.002 }) },
    ]);
    expect(audit.body.total).toBe(3);
    // An org key is refused (the operator's audit takes the admin token).
    const { key } = await orgWithAdminKey();
    expect((await call('GET', '/v1/audit', key, undefined, '127.0.0.7')).status).toBe(403);
  });
});
