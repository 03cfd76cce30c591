import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { postJson } from '../../support/paid-tools';
import { ScriptedResolver } from '../../support/scripted-resolver';
import { pgliteStorage } from '../../support/storage-env';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const PUBLIC_ADDRESS = '93.184.216.34';

/** Row 7 of the attack table: what an admin registered, and what the proxy-time check let through. */
const ROW_7 = ['192.0.0.192', '198.18.0.1', '240.0.0.1', '64:ff9b:1::a9fe:a9fe'];

/**
 * One address inside every block of the committed IANA table (src/modules/tools/domain/special-purpose-addresses.ts)
 * that is not globally reachable, and of the blocks beside it; each must be refused.
 */
const TABLE_ENTRIES_CHECKED: ReadonlyArray<[block: string, address: string]> = [
  ['0.0.0.0/8', '0.1.2.3'],
  ['0.0.0.0/32', '0.0.0.0'],
  ['10.0.0.0/8', '10.20.30.40'],
  ['100.64.0.0/10', '100.100.100.100'],
  ['127.0.0.0/8', '127.0.0.53'],
  ['169.254.0.0/16', '169.254.169.254'],
  ['172.16.0.0/12', '172.20.0.1'],
  ['192.0.0.0/24', '192.0.0.192'],
  ['192.0.0.0/29', '192.0.0.2'],
  ['192.0.0.8/32', '192.0.0.8'],
  ['192.0.0.170/32', '192.0.0.170'],
  ['192.0.0.171/32', '192.0.0.171'],
  ['192.0.2.0/24', '192.0.2.10'],
  ['192.88.99.0/24', '192.88.99.1'],
  ['192.168.0.0/16', '192.168.1.1'],
  ['198.18.0.0/15', '198.19.255.254'],
  ['198.51.100.0/24', '198.51.100.7'],
  ['203.0.113.0/24', '203.0.113.9'],
  ['240.0.0.0/4', '250.1.2.3'],
  ['255.255.255.255/32', '255.255.255.255'],
  ['224.0.0.0/4', '239.1.1.1'],
  ['::1/128', '::1'],
  ['::/128', '::'],
  ['64:ff9b:1::/48', '64:ff9b:1::808:808'],
  ['100::/64', '100::1'],
  ['100:0:0:1::/64', '100:0:0:1::1'],
  ['2001::/23', '2001:100::1'],
  ['2001:2::/48', '2001:2::1'],
  ['2001:10::/28', '2001:10::1'],
  ['2001:db8::/32', '2001:db8::1'],
  ['3fff::/20', '3fff:123::1'],
  ['5f00::/16', '5f00::1'],
  ['fc00::/7', 'fd12:3456::1'],
  ['fe80::/10', 'fe80::1'],
  ['fec0::/10', 'fec0::1'],
  ['ff00::/8', 'ff02::1'],
];

/** Blocks that carry an IPv4 address, judged by it: refused when it is, allowed when it is public. */
const EMBEDDING_CHECKED: ReadonlyArray<[form: string, refused: string, allowed: string]> = [
  ['::ffff:0:0/96 (IPv4-mapped)', '::ffff:192.0.0.192', '::ffff:8.8.8.8'],
  ['64:ff9b::/96 (NAT64)', '64:ff9b::c612:1', '64:ff9b::808:808'],
  ['2002::/16 (6to4)', '2002:f000:1::1', '2002:808:808::1'],
  ['2001::/32 (Teredo, client bits inverted)', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
];

const registration = (id: string, endpoint: string) => ({ id, name: `Service ${id}`, category: 'Data', endpoint, x402_enabled: false, price_per_request_usdc: '0.002' });
const literal = (address: string) => (address.includes(':') ? `https://[${address}]/latest/meta-data` : `https://${address}/latest/meta-data`);

describe('the open edge: SSRF ranges from ipaddr.js and the committed IANA table', () => {
  const resolver = new ScriptedResolver();
  let gateway: RunningGateway;
  let next = 0;

  beforeAll(async () => {
    gateway = await startTestGateway({ ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { hostResolver: resolver });
  });
  afterAll(() => gateway.close());

  async function registerStatus(endpoint: string): Promise<{ status: number; code?: string }> {
    const res = await postJson(gateway, '/v1/services/register', registration(`ssrf-${++next}`, endpoint), ADMIN);
    const body = (await res.json()) as { error?: { code: string } };
    return { status: res.status, code: body.error?.code };
  }

  it('row 7: the cloud-metadata, benchmarking, reserved and local-use NAT64 addresses are refused at registration and at proxy time', async () => {
    for (const address of ROW_7) expect({ address, ...(await registerStatus(literal(address))) }).toEqual({ address, status: 400, code: 'services.endpoint_refused' });
    // A name that resolved to a public address at registration and to one of these at proxy time.
    for (const [i, address] of ROW_7.entries()) {
      const host = `row7-${i}.test`;
      resolver.answer(host, [PUBLIC_ADDRESS], [address]);
      const id = `row7-${i}`;
      expect((await postJson(gateway, '/v1/services/register', registration(id, `https://${host}/latest/meta-data`), ADMIN)).status).toBe(201);
      const proxied = await postJson(gateway, `/v1/services/${id}/proxy`, {});
      expect({ address, status: proxied.status, code: ((await proxied.json()) as { error: { code: string } }).error.code }).toEqual({ address, status: 502, code: 'services.proxy_refused' });
    }
  });

  it.each(TABLE_ENTRIES_CHECKED)('refuses an address in %s (%s)', async (_block, address) => {
    expect(await registerStatus(literal(address))).toEqual({ status: 400, code: 'services.endpoint_refused' });
  });

  it.each(EMBEDDING_CHECKED)('judges %s by the IPv4 address it carries', async (_form, refused, allowed) => {
    expect(await registerStatus(literal(refused))).toEqual({ status: 400, code: 'services.endpoint_refused' });
    expect((await registerStatus(literal(allowed))).status).toBe(201);
  });
});
