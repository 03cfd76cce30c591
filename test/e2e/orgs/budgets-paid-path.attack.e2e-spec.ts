import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { formatUsdc } from '../../../src/modules/billing/domain/atomic-usdc';
import type { RunningGateway } from '../../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { pgliteStorage } from '../../support/storage-env';
import { joinConsent } from '../../support/team-consent';

/** Adversarial review of budgets on the paid chat path (docs/decisions.md, "Budgets"). */
describe('budget attacks on the paid path', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
  }, 60_000);
  // A gateway per test: a provider's failures in one test must not trip the breaker of the next.
  beforeEach(async () => {
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
  }, 60_000);
  afterEach(async () => {
    world.upstreams.resetAll();
    await gateway.close();
  });
  afterAll(async () => {
    await world.close();
  });

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const newPayer = () => {
    const payer = Keypair.generate();
    world.localnet.airdrop(payer.publicKey, LAMPORTS_PER_SOL);
    world.localnet.fundUsdc(payer.publicKey, 10_000_000n);
    return payer;
  };
  const balance = (payer: Keypair) => world.localnet.usdcBalance(payer.publicKey);
  const pay = async (payer: Keypair, body = chatBody()) => {
    const { header } = await quote(gateway, body);
    const res = await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header, { payer }) });
    const text = await res.text();
    return { status: res.status, text };
  };

  it('a provider failure after the reservation releases it: the budget admits the next payment', async () => {
    const payer = newPayer();
    const { amount } = await quote(gateway, chatBody());
    expect((await admin('PUT', `/v1/wallets/${payer.publicKey.toBase58()}/budget`, { daily: Number(formatUsdc(amount)) })).status).toBe(200);
    world.upstreams.openai.script({ kind: 'status', status: 400 });
    const failed = await pay(payer);
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(failed.text).not.toMatch(/budget/);
    const before = balance(payer);
    const served = await pay(payer);
    expect(served.status).toBe(200);
    expect(before - balance(payer)).toBe(amount);
  }, 60_000);

  it('a stream cut before any content releases the reservation', async () => {
    const payer = newPayer();
    const { amount } = await quote(gateway, chatBody({ stream: true }));
    expect((await admin('PUT', `/v1/wallets/${payer.publicKey.toBase58()}/budget`, { hourly: Number(formatUsdc(amount)) })).status).toBe(200);
    world.upstreams.openai.script({ kind: 'cut-stream', afterChunks: 0 }, { kind: 'cut-stream', afterChunks: 0 });
    await pay(payer, chatBody({ stream: true }));
    world.upstreams.resetAll();
    const before = balance(payer);
    expect((await pay(payer, chatBody({ stream: true }))).status).toBe(200);
    expect(before - balance(payer)).toBe(amount);
  }, 60_000);

  it('a payer in two teams of two orgs with budgets: the tighter one binds, once', async () => {
    const payer = newPayer();
    const wallet = payer.publicKey.toBase58();
    const { amount } = await quote(gateway, chatBody());
    const teams: string[] = [];
    for (const [name, limit] of [
      ['loose', amount * 10n],
      ['tight', amount],
    ] as const) {
      const org = (await admin('POST', '/v1/orgs', { name, owner_wallet: wallet })).body.id as string;
      const team = (await admin('POST', `/v1/orgs/${org}/teams`, { name })).body.id as string;
      await admin('POST', `/v1/orgs/${org}/teams/${team}/wallets`, { wallet_address: wallet });
      expect((await admin('PUT', `/v1/orgs/${org}/teams/${team}/budget`, { monthly: Number(formatUsdc(limit)) })).status).toBe(200);
      teams.push(team);
    }
    const before = balance(payer);
    const results = await Promise.all(Array.from({ length: 4 }, () => pay(payer)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(before - balance(payer)).toBe(amount);
  }, 60_000);

  it('a refused payment retried after the budget was raised is served and charged once; its replay is not charged again', async () => {
    const payer = newPayer();
    const wallet = payer.publicKey.toBase58();
    const { header, amount } = await quote(gateway, chatBody());
    await admin('PUT', `/v1/wallets/${wallet}/budget`, { daily: 0 });
    const signature = specPaymentHeader(world, header, { payer });
    const before = balance(payer);
    expect((await postChat(gateway, chatBody(), { 'payment-signature': signature })).status).toBe(400);
    await admin('PUT', `/v1/wallets/${wallet}/budget`, { daily: Number(formatUsdc(amount)) });
    const served = await postChat(gateway, chatBody(), { 'payment-signature': signature });
    expect(served.status).toBe(200);
    await served.text();
    const again = await postChat(gateway, chatBody(), { 'payment-signature': signature });
    await again.text();
    expect(before - balance(payer)).toBe(amount);
    const budget = (await admin('GET', `/v1/wallets/${wallet}/budget`)).body;
    expect(budget.daily_spend).toBe(formatUsdc(amount));
  }, 60_000);

  it('overpaying: the reservation is what moves, so a payment of more than the quote cannot pass the limit', async () => {
    const payer = newPayer();
    const wallet = payer.publicKey.toBase58();
    const { header, amount } = await quote(gateway, chatBody());
    await admin('PUT', `/v1/wallets/${wallet}/budget`, { daily: Number(formatUsdc(amount * 2n)) });
    const before = balance(payer);
    const res = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header, { payer, amount: amount * 3n }) });
    await res.text();
    expect(res.status).toBe(400);
    expect(balance(payer)).toBe(before);
  }, 60_000);

  // Spec 4.9: a wallet's spend counts against the budget of every team it is in, and an org's admins
  // put wallets in its teams with the wallet's consent (docs/decisions.md, "Whose word makes a team"); the refusal names no team.
  it('a team budget binds every wallet its org put in the team with its consent, and the refusal names no team', async () => {
    const victim = newPayer();
    const org = (await admin('POST', '/v1/orgs', { name: 'hostile', owner_wallet: Keypair.generate().publicKey.toBase58() })).body.id as string;
    const key = (await admin('POST', `/v1/orgs/${org}/api-keys`, { name: 'a', role: 'admin' })).body.key as string;
    const asKey = async (method: string, path: string, body?: unknown) =>
      (await fetch(`${gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: body === undefined ? undefined : JSON.stringify(body) }))
        .status;
    const team = (await admin('POST', `/v1/orgs/${org}/teams`, { name: 'trap' })).body.id as string;
    await asKey('POST', `/v1/orgs/${org}/teams/${team}/wallets`, { wallet_address: victim.publicKey.toBase58(), consent_signature: joinConsent(victim, org, team) });
    await asKey('PUT', `/v1/orgs/${org}/teams/${team}/budget`, { daily: 0 });
    const res = await pay(victim);
    expect(res.status).toBe(400);
    expect(res.text).toContain('budget.exceeded');
    expect(res.text).not.toContain('trap');
  }, 60_000);
});
