import { Keypair } from '@solana/web3.js';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { serviceAvailable } from '../../support/services';
import { gatewayOnStorage, pgliteStorage, postgresStorage, type TestStorage } from '../../support/storage-env';
import { joinConsent } from '../../support/team-consent';

/** Adversarial review of budget amounts and wallet stats routes (docs/decisions.md, "Budgets", "Wallet stats"). */
const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  raw: string;
}

function attacks(storage: () => Promise<TestStorage>): void {
  const gatewayOf = gatewayOnStorage(storage, { GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });

  async function call(method: string, path: string, token?: string, body?: unknown, rawBody?: string): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${gatewayOf().url}${path}`, { method, headers, body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)) });
    const raw = await res.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      /* not json */
    }
    return { status: res.status, body: parsed, raw };
  }
  const putWallet = (rawBody: string) => call('PUT', `/v1/wallets/${WALLET}/budget`, TEST_ADMIN_TOKEN, undefined, rawBody);

  it('a limit beyond what the bigint column holds is a 400, never a 500 (wallet budget)', async () => {
    // 9,300,000,000,000 USDC = 9.3e18 atomic > int8 max 9,223,372,036,854,775,807; 15 digits parse.
    for (const amount of ['9300000000000', '999999999999999', '123456789012345.6']) {
      const res = await putWallet(`{"daily": ${amount}}`);
      expect({ amount, status: res.status }).toEqual({ amount, status: 400 });
    }
  });

  it('a limit beyond what the bigint column holds is a 400, never a 500 (team budget)', async () => {
    const org = (await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'Huge', owner_wallet: WALLET })).body.id as string;
    const team = (await call('POST', `/v1/orgs/${org}/teams`, TEST_ADMIN_TOKEN, { name: 't' })).body.id as string;
    const res = await call('PUT', `/v1/orgs/${org}/teams/${team}/budget`, TEST_ADMIN_TOKEN, undefined, '{"monthly": 9999999999999}');
    expect(res.status).toBe(400);
  });

  it('edge amounts held: 0, 0.000001, -0 accepted; exponents, 7 decimals, strings, negatives, 1e21 refused', async () => {
    for (const [amount, status] of [
      ['0', 200],
      ['0.000001', 200],
      ['-0', 200],
      ['9000000000000', 200],
      ['1e-7', 400],
      ['0.0000001', 400],
      ['"5"', 400],
      ['-1', 400],
      ['1e21', 400],
      ['9e15', 400],
    ] as const) {
      const res = await putWallet(`{"hourly": ${amount}}`);
      expect({ amount, status: res.status }).toEqual({ amount, status });
    }
    expect((await putWallet('{"hourly": null}')).body).toMatchObject({ hourly: null });
  });

  it('stats: days abuse is 400, never 500', async () => {
    for (const q of ['?days=1e1', '?days=-0', '?days=99999999999999999999', '?days=1&days=2', '?days=%201', '?days=']) {
      const res = await call('GET', `/v1/wallets/${WALLET}/stats${q}`, TEST_ADMIN_TOKEN);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
    }
  });

  it('stats: a key of an org without the wallet cannot read it under any case variant', async () => {
    const org = (await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'Has', owner_wallet: WALLET })).body.id as string;
    const team = (await call('POST', `/v1/orgs/${org}/teams`, TEST_ADMIN_TOKEN, { name: 'p' })).body.id as string;
    await call('POST', `/v1/orgs/${org}/teams/${team}/wallets`, TEST_ADMIN_TOKEN, { wallet_address: WALLET });
    const other = (await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'Lacks', owner_wallet: WALLET })).body.id as string;
    const key = (await call('POST', `/v1/orgs/${other}/api-keys`, TEST_ADMIN_TOKEN, { name: 'r', role: 'owner' })).body.key as string;
    for (const w of [WALLET, WALLET.toLowerCase().replace(/l/g, 'k'), `${WALLET}%20`, `${WALLET}/`]) {
      const res = await call('GET', `/v1/wallets/${w}/stats`, key);
      expect({ w, ok: res.status === 200 }).toEqual({ w, ok: false });
    }
  });

  // Spec 4.9: an org's admins put wallets in its teams, and a key reads the stats of its teams'
  // wallets (docs/decisions.md, "Wallet stats"): the wallet's word makes the membership.
  it('stats: a key reads a wallet once a team of its org has it with its consent, not before', async () => {
    const org = (await call('POST', '/v1/orgs', TEST_ADMIN_TOKEN, { name: 'Snoop', owner_wallet: WALLET })).body.id as string;
    const key = (await call('POST', `/v1/orgs/${org}/api-keys`, TEST_ADMIN_TOKEN, { name: 's', role: 'admin' })).body.key as string;
    const team = (await call('POST', `/v1/orgs/${org}/teams`, key, { name: 'snoop' })).body.id as string;
    const owner = Keypair.generate();
    const victim = owner.publicKey.toBase58();
    expect((await call('GET', `/v1/wallets/${victim}/stats`, key)).status).toBe(404);
    await call('POST', `/v1/orgs/${org}/teams/${team}/wallets`, key, { wallet_address: victim, consent_signature: joinConsent(owner, org, team) });
    expect((await call('GET', `/v1/wallets/${victim}/stats`, key)).status).toBe(200);
  });
}

describe('budget amounts and stats (PGlite)', () => attacks(pgliteStorage));
(serviceAvailable('postgres') ? describe : describe.skip)('budget amounts and stats (PostgreSQL)', () => attacks(postgresStorage));

describe('budget body shapes (PGlite)', () => {
  const gatewayOf = gatewayOnStorage(pgliteStorage, { GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });

  it('odd bodies are 400 (or the uncapped 200), never 500', async () => {
    for (const body of [
      '[]',
      '"x"',
      'null',
      '{"daily": {}}',
      '{"daily": [1]}',
      '{"daily": true}',
      '{"__proto__": {"daily": 1}}',
      '{"daily": 1e400}',
      '{"daily": 100000000000000000000000}',
      '{"constructor": {"prototype": {"daily": 1}}}',
    ]) {
      const res = await fetch(`${gatewayOf().url}/v1/wallets/${WALLET}/budget`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        body,
      });
      expect({ body, bad: res.status >= 500 }).toEqual({ body, bad: false });
    }
  });
});
