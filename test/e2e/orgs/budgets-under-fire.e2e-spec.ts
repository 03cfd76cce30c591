import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { formatUsdc } from '../../../src/modules/billing/domain/atomic-usdc';
import type { RunningGateway } from '../../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';
import { sleep, until } from '../../support/settlement-probes';
import { postgresStorage, type TestStorage } from '../../support/storage-env';

/**
 * Budgets under concurrency across instances (docs/decisions.md, "Budgets"): two gateways sharing
 * one PostgreSQL database and one Redis take a burst of distinct paid requests, in parallel and
 * alternating between them, against a daily budget that admits exactly N quotes. The reservation
 * locks the budget rows, so exactly N are served and settled; every other one is refused before
 * any funds move.
 */

jest.setTimeout(180_000);

const N = 7;
const available = serviceAvailable('postgres') && serviceAvailable('redis');
const missing = [serviceAvailable('postgres') ? null : 'PostgreSQL', serviceAvailable('redis') ? null : 'Redis'].filter(Boolean).join(' and ');
const describeWithServices = available ? describe : describe.skip;
const skipped = available ? '' : ` (skipped: ${missing} not available)`;

interface ErrorBody {
  error: { type: string; code: string; message: string };
}

interface Outcome {
  status: number;
  code?: string;
  message?: string;
}

describeWithServices(`budgets under fire: parallel paid requests across two instances sharing PostgreSQL and Redis${skipped}`, () => {
  let world: PaidWorld;
  let storage: TestStorage;
  let redis: PrivateRedis;
  let gateways: RunningGateway[];

  beforeAll(async () => {
    world = await startPaidWorld();
    storage = await postgresStorage();
    redis = await startPrivateRedis();
    const env = { ...storage.env, REDIS_URL: redis.url, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_RATE_LIMIT_MAX: '10000', GW_ENTERPRISE_RATE_LIMIT: '10000' };
    // One first, so the schema is migrated once; then the second on the same database.
    const first = await startPaidGateway(world, env);
    const second = await startPaidGateway(world, env);
    gateways = [first, second];
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await Promise.all((gateways ?? []).map((gateway) => gateway.close()));
    await redis?.close();
    await world?.close();
    await storage?.drop();
  });

  const admin = async (gateway: RunningGateway, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  const newPayer = (usdc: bigint): Keypair => {
    const payer = Keypair.generate();
    world.localnet.airdrop(payer.publicKey, LAMPORTS_PER_SOL);
    world.localnet.fundUsdc(payer.publicKey, usdc);
    return payer;
  };

  /** `count` distinct paid requests at once, request i from payers[i % payers] to gateways[i % 2]; the provider waits a little so that served requests hold their reservations while the rest arrive. */
  const burst = async (payers: Keypair[], count: number): Promise<{ outcomes: Outcome[]; amount: bigint }> => {
    const body = chatBody();
    const { header, amount } = await quote(gateways[0], body);
    world.upstreams.openai.script(...Array.from({ length: count }, () => ({ kind: 'reply' as const, firstByteDelayMs: 300 })));
    const headers = Array.from({ length: count }, (_, i) => specPaymentHeader(world, header, { payer: payers[i % payers.length] }));
    const outcomes = await Promise.all(
      headers.map(async (payment, i): Promise<Outcome> => {
        const res = await postChat(gateways[i % gateways.length], body, { 'payment-signature': payment });
        const text = await res.text();
        if (res.status === 200) return { status: 200 };
        try {
          const { error } = JSON.parse(text) as ErrorBody;
          return { status: res.status, code: error?.code, message: error?.message };
        } catch {
          return { status: res.status, message: text.slice(0, 200) };
        }
      }),
    );
    return { outcomes, amount };
  };

  const tally = (outcomes: Outcome[]): Record<string, number> =>
    outcomes.reduce<Record<string, number>>((counts, { status, code }) => {
      const key = `${status} ${code ?? ''}`.trim();
      counts[key] = (counts[key] ?? 0) + 1;
      return counts;
    }, {});

  it(`a wallet budget of ${N} quotes, 100 parallel payments from one wallet over both instances: exactly ${N} served and settled, the rest 400 budget.exceeded with nothing moved`, async () => {
    const { amount } = await quote(gateways[0], chatBody());
    const payer = newPayer(100n * amount + 1_000_000n);
    const wallet = payer.publicKey.toBase58();
    const limit = formatUsdc(BigInt(N) * amount);
    expect((await admin(gateways[0], 'PUT', `/v1/wallets/${wallet}/budget`, { daily: Number(limit) })).status).toBe(200);
    const before = { payer: world.localnet.usdcBalance(payer.publicKey), recipient: world.localnet.usdcBalance(world.recipient.publicKey) };

    const { outcomes, amount: charged } = await burst([payer], 100);
    expect(charged).toBe(amount);
    const counts = tally(outcomes);

    expect(counts).toEqual({ '200': N, '400 budget.exceeded': 100 - N });
    for (const refusal of outcomes.filter((o) => o.status !== 200)) expect(refusal.message).toMatch(new RegExp(`^budget exceeded for wallet ${wallet}`));
    expect(world.upstreams.openai.requests).toHaveLength(N);

    // Settlement follows the answer: wait for it, then make sure nothing more moves.
    const expected = BigInt(N) * amount;
    await until(() => world.localnet.usdcBalance(world.recipient.publicKey) - before.recipient >= expected, 20_000, `${N} payments settled`);
    await until(async () => (await admin(gateways[1], 'GET', `/v1/wallets/${wallet}/budget`)).body.daily_spend === limit, 20_000, 'the settled spend shows in the budget');
    await sleep(1_500);
    expect(world.localnet.usdcBalance(world.recipient.publicKey) - before.recipient).toBe(expected);
    expect(before.payer - world.localnet.usdcBalance(payer.publicKey)).toBe(expected);
    for (const gateway of gateways) {
      const budget = (await admin(gateway, 'GET', `/v1/wallets/${wallet}/budget`)).body;
      expect(budget).toMatchObject({ daily: Number(limit), daily_spend: limit, hourly: null, monthly: null });
      expect(BigInt(String(budget.daily_spend).replace('.', ''))).toBeLessThanOrEqual(expected);
    }
  });

  it(`a team budget of ${N} quotes shared by three wallets, 60 parallel payments over the wallets and both instances: exactly ${N} served, settled spend ${N} quotes`, async () => {
    const { amount } = await quote(gateways[0], chatBody());
    const payers = [newPayer(20n * amount + 1_000_000n), newPayer(20n * amount + 1_000_000n), newPayer(20n * amount + 1_000_000n)];
    const org = await admin(gateways[0], 'POST', '/v1/orgs', { name: 'Under fire', owner_wallet: payers[0].publicKey.toBase58() });
    expect(org.status).toBe(201);
    const orgId = org.body.id as string;
    const team = await admin(gateways[1], 'POST', `/v1/orgs/${orgId}/teams`, { name: 'burst' });
    expect(team.status).toBe(201);
    const teamId = team.body.id as string;
    for (const payer of payers) {
      expect((await admin(gateways[0], 'POST', `/v1/orgs/${orgId}/teams/${teamId}/wallets`, { wallet_address: payer.publicKey.toBase58() })).status).toBe(201);
    }
    const limit = formatUsdc(BigInt(N) * amount);
    expect((await admin(gateways[1], 'PUT', `/v1/orgs/${orgId}/teams/${teamId}/budget`, { daily: Number(limit) })).status).toBe(200);
    const balances = () => payers.map((payer) => world.localnet.usdcBalance(payer.publicKey));
    const before = { payers: balances(), recipient: world.localnet.usdcBalance(world.recipient.publicKey) };

    const { outcomes, amount: charged } = await burst(payers, 60);
    expect(charged).toBe(amount);
    const counts = tally(outcomes);

    expect(counts).toEqual({ '200': N, '400 budget.exceeded': 60 - N });
    for (const refusal of outcomes.filter((o) => o.status !== 200)) expect(refusal.message).toMatch(/^budget exceeded for wallet \w+: the daily budget of a team it is in has/);
    expect(world.upstreams.openai.requests).toHaveLength(N);

    const expected = BigInt(N) * amount;
    await until(() => world.localnet.usdcBalance(world.recipient.publicKey) - before.recipient >= expected, 20_000, `${N} payments settled`);
    await until(async () => (await admin(gateways[0], 'GET', `/v1/orgs/${orgId}/teams/${teamId}/budget`)).body.daily_spend === limit, 20_000, 'the settled spend shows in the team budget');
    await sleep(1_500);
    expect(world.localnet.usdcBalance(world.recipient.publicKey) - before.recipient).toBe(expected);
    const paid = balances().reduce((sum, balance, i) => sum + (before.payers[i] - balance), 0n);
    expect(paid).toBe(expected);
    // Each payer paid a whole number of quotes: the served ones from it.
    const servedPerPayer = payers.map((_, p) => outcomes.filter((o, i) => i % payers.length === p && o.status === 200).length);
    expect(balances().map((balance, i) => before.payers[i] - balance)).toEqual(servedPerPayer.map((served) => BigInt(served) * amount));
    for (const gateway of gateways) {
      const budget = (await admin(gateway, 'GET', `/v1/orgs/${orgId}/teams/${teamId}/budget`)).body;
      expect(budget).toMatchObject({ daily: Number(limit), daily_spend: limit });
    }
  });
});
