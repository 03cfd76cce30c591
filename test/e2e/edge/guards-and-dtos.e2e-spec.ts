import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { forgetTestOrgKeys, TestRoutesModule, testOrgKey } from '../../support/test-routes.module';

const ORG = '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
const OTHER_ORG = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

interface Answer {
  status: number;
  body: { error?: { type: string; code: string; message: string } } & Record<string, unknown>;
}

async function call(gateway: RunningGateway, method: 'GET' | 'POST', path: string, init: { token?: string; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(`${gateway.url}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

describe('REST bodies as class-validator DTOs (one global pipe)', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({}, { imports: [TestRoutesModule] });
  });
  afterAll(() => gateway.close());

  it('hands the handler an instance of its DTO', async () => {
    const res = await call(gateway, 'POST', '/test/teams', { body: { name: 'search', seats: 3, members: [{ wallet_address: WALLET, role: 'admin' }] } });

    expect(res).toEqual({ status: 201, body: { isTeam: true, team: { name: 'search', seats: 3, members: [{ wallet_address: WALLET, role: 'admin' }] } } });
  });

  it.each([
    ['a missing field', { seats: 2 }, /^name /],
    ['a value out of range', { name: 'search', seats: 0 }, /^seats /],
    ['a wrong type', { name: 7 }, /^name /],
    ['an unknown field', { name: 'search', owner: 'me' }, /owner/],
    ['a bad value in a nested list', { name: 'search', members: [{ wallet_address: WALLET, role: 'root' }] }, /^members\[0\]\.role /],
  ])('answers %s with the spec envelope: 400 bad_request naming the field', async (_, body, message) => {
    const res = await call(gateway, 'POST', '/test/teams', { body });

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'bad_request', code: 'request.invalid_body', message: expect.stringMatching(message) });
  });
});

describe('the enterprise auth guard: admin token or org API key, roles, org scope', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { imports: [TestRoutesModule] });
  });
  afterAll(() => {
    forgetTestOrgKeys();
    return gateway.close();
  });

  it('lets the admin token through on any org, above every role', async () => {
    const res = await call(gateway, 'POST', `/test/orgs/${ORG}/manage`, { token: TEST_ADMIN_TOKEN });

    expect(res).toEqual({ status: 200, body: { caller: { kind: 'admin' } } });
  });

  it('lets an org key through on its own org when its role suffices, and says who it is', async () => {
    const res = await call(gateway, 'GET', `/test/orgs/${ORG}/reads`, { token: testOrgKey(ORG, 'member') });

    expect(res.status).toBe(200);
    expect(res.body.caller).toMatchObject({ kind: 'org-key', orgId: ORG, role: 'member' });
  });

  it('answers 403 to a key whose role is too low, and lets a higher role through', async () => {
    const refused = await call(gateway, 'POST', `/test/orgs/${ORG}/manage`, { token: testOrgKey(ORG, 'member') });
    const admitted = await call(gateway, 'POST', `/test/orgs/${ORG}/manage`, { token: testOrgKey(ORG, 'owner') });

    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'forbidden', code: 'org.role_insufficient' });
    expect(admitted.status).toBe(200);
  });

  it("answers another org's key with the 404 of a missing org, whatever its role", async () => {
    const res = await call(gateway, 'GET', `/test/orgs/${OTHER_ORG}/reads`, { token: testOrgKey(ORG, 'owner') });

    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ type: 'not_found', code: 'org.not_found' });
  });

  it.each([
    ['no credentials', undefined],
    ['a wrong admin token', 'not-the-admin-token'],
    ['an unknown org key', `gwk_${'A'.repeat(43)}`],
    ['a key of the wrong shape', 'gwk_short'],
  ])('answers %s with 401', async (_, token) => {
    const res = await call(gateway, 'GET', `/test/orgs/${ORG}/reads`, { token });

    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'unauthorized', code: 'org.unauthorized' });
  });
});

describe('the enterprise auth guard while GW_ADMIN_TOKEN is unset', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ GW_ADMIN_TOKEN: undefined }, { imports: [TestRoutesModule] });
  });
  afterAll(() => {
    forgetTestOrgKeys();
    return gateway.close();
  });

  it('answers 503 admin endpoint not configured, to org keys too', async () => {
    for (const token of [undefined, testOrgKey(ORG, 'owner')]) {
      const res = await call(gateway, 'GET', `/test/orgs/${ORG}/reads`, { token });
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'service_unavailable', message: 'admin endpoint not configured' });
    }
  });
});
