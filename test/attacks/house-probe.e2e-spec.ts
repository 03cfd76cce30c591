import { request } from 'node:http';
import type { RunningGateway } from '../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../support/gateway-harness';
import { forgetTestOrgKeys, TestRoutesModule, testOrgKey } from '../support/test-routes.module';

const ORG = '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

function raw(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; headers: Record<string, unknown>; text: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: text.slice(0, 400), ms: Date.now() - started }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('probe', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { imports: [TestRoutesModule] });
  });
  afterAll(() => {
    forgetTestOrgKeys();
    return gw.close();
  });

  it('probes', async () => {
    const out: unknown[] = [];
    const log = (label: string, r: { status: number; headers: Record<string, unknown>; text: string; ms: number }) =>
      out.push(`${label} -> ${r.status} ${r.ms}ms rl=${String(r.headers['x-ratelimit-remaining'])} ${r.text.slice(0, 250)}`);
    for (const p of ['/v1/receipts/%ZZ', '/test/orgs/%ZZ/reads', '/v1/receipts/x/', '/V1/RECEIPTS/x', '/v1/receipts/x%2Fy', '/v1/receipts/']) log(`GET ${p}`, await raw(gw.url, 'GET', p));
    log('HEAD', await raw(gw.url, 'HEAD', '/v1/receipts/x'));
    log('OPTIONS', await raw(gw.url, 'OPTIONS', '/v1/receipts/x'));
    log('OPTIONS preflight', await raw(gw.url, 'OPTIONS', '/v1/receipts/x', { origin: 'http://evil', 'access-control-request-method': 'GET' }));
    const key = testOrgKey(ORG, 'member');
    for (const auth of [`bearer ${TEST_ADMIN_TOKEN}`, `BEARER  ${TEST_ADMIN_TOKEN}  `, `Bearer\t${TEST_ADMIN_TOKEN}`, `Bearer ${TEST_ADMIN_TOKEN} x`, `Bearer ${key}`, `Basic ${TEST_ADMIN_TOKEN}`, `Bearer ${'a'.repeat(60000)}`])
      log(`auth ${auth.slice(0, 30)}`, await raw(gw.url, 'GET', `/test/orgs/${ORG}/reads`, { authorization: auth }));
    log('upper org', await raw(gw.url, 'GET', `/test/orgs/${ORG.toUpperCase()}/reads`, { authorization: `Bearer ${key}` }));
    log('encoded org', await raw(gw.url, 'GET', `/test/orgs/%36${ORG.slice(1)}/reads`, { authorization: `Bearer ${key}` }));
    log('trailing slash org', await raw(gw.url, 'GET', `/test/orgs/${ORG}/reads/`, { authorization: `Bearer ${key}` }));
    log('no org', await raw(gw.url, 'GET', `/test/orgs//reads`, { authorization: `Bearer ${key}` }));
    const post = (label: string, body: string) => raw(gw.url, 'POST', '/test/teams', { 'content-type': 'application/json' }, body).then((r) => log(label, r));
    await post('proto', '{"name":"a","__proto__":{"polluted":1}}');
    await post('proto nested', `{"name":"a","members":[{"wallet_address":"${WALLET}","role":"admin","__proto__":{"role":"owner"}}]}`);
    await post('constructor', '{"name":"a","constructor":{"prototype":{"polluted":1}}}');
    await post('members object', `{"name":"a","members":{"wallet_address":"${WALLET}","role":"admin"}}`);
    await post('members string', '{"name":"a","members":"x"}');
    await post('members nulls', '{"name":"a","members":[null]}');
    await post('members nested arrays', '{"name":"a","members":[[[[1]]]]}');
    await post('array body', '[{"name":"a"}]');
    await post('empty array body', '[]');
    await post('null body', 'null');
    await post('string body', '"x"');
    await post('number body', '5');
    await post('name array', '{"name":["a"]}');
    await post('seats huge', '{"name":"a","seats":1e400}');
    await post('seats bigstr', '{"name":"a","seats":"12"}');
    await post('long key', `{"name":"a","${'k'.repeat(5000)}":1}`);
    await post('many members', JSON.stringify({ name: 'a', members: Array.from({ length: 20000 }, () => ({ wallet_address: WALLET, role: 'admin' })) }));
    await post('many unknown keys', JSON.stringify(Object.fromEntries(Array.from({ length: 20000 }, (_, i) => [`k${i}`, i]))));
    await post('hasOwnProperty', '{"name":"a","hasOwnProperty":1}');
    await post('toString', '{"name":{"toString":1}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    console.log(out.join('\n'));
  });
});
