import type { Keypair } from '@solana/web3.js';
import { formatUsdc } from '../../../src/modules/billing/domain/atomic-usdc';
import type { RunningGateway } from '../../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { pgliteStorage } from '../../support/storage-env';
import { changeSince, drainUsdc, fundedPayer, hasContent, longText, snapshot, StreamReader, until } from '../../support/settlement-probes';

/** Final adversarial review of the budgeted money path: reservations against what actually moved on chain. */
describe('money-final: budgets against the chain', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
  }, 60_000);
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
  const setBudget = async (payer: Keypair, body: Record<string, number>) => expect((await admin('PUT', `/v1/wallets/${payer.publicKey.toBase58()}/budget`, body)).status).toBe(200);
  const dailySpend = async (payer: Keypair) => (await admin('GET', `/v1/wallets/${payer.publicKey.toBase58()}/budget`)).body.daily_spend;
  const paymentFor = async (payer: Keypair, body = chatBody()) => {
    const { header, amount } = await quote(gateway, body);
    return { payment: specPaymentHeader(world, header, { payer }), amount };
  };

  it('a budget-refused payment reused after the budget is raised is served once; its replay moves nothing; daily_spend is what moved', async () => {
    const payer = fundedPayer(world);
    const { payment, amount } = await paymentFor(payer);
    await setBudget(payer, { daily: Number(formatUsdc(amount - 1n)) });
    const before = snapshot(world, payer);
    const refused = await postChat(gateway, chatBody(), { 'payment-signature': payment });
    expect(refused.status).toBe(400);
    await refused.text();
    expect(changeSince(world, payer, before)).toMatchObject({ payer: 0n, recipient: 0n, landed: 0 });
    expect(world.upstreams.openai.requests).toHaveLength(0);

    await setBudget(payer, { daily: Number(formatUsdc(amount)) });
    const served = await postChat(gateway, chatBody(), { 'payment-signature': payment });
    expect(served.status).toBe(200);
    await served.text();
    const again = await postChat(gateway, chatBody(), { 'payment-signature': payment });
    await again.text();
    expect(changeSince(world, payer, before)).toMatchObject({ payer: -amount, recipient: amount, landed: 1 });
    expect(await dailySpend(payer)).toBe(formatUsdc(amount));

    // The budget is used up: a fresh payment is refused with nothing moved.
    const next = await paymentFor(payer);
    const over = await postChat(gateway, chatBody(), { 'payment-signature': next.payment });
    expect(over.status).toBe(400);
    await over.text();
    expect(changeSince(world, payer, before)).toMatchObject({ payer: -amount, recipient: amount, landed: 1 });
  }, 60_000);

  it('concurrent identical headers under a budget: one charge, one reservation converted', async () => {
    const payer = fundedPayer(world);
    const { payment, amount } = await paymentFor(payer);
    await setBudget(payer, { daily: Number(formatUsdc(amount * 3n)) });
    world.upstreams.openai.script({ kind: 'reply', text: longText(4), firstByteDelayMs: 200 });
    const before = snapshot(world, payer);
    const answers = await Promise.all([0, 1, 2, 3].map(() => postChat(gateway, chatBody(), { 'payment-signature': payment }).then(async (res) => ({ status: res.status, text: await res.text() }))));
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1);
    await until(() => changeSince(world, payer, before).landed >= 1, 3_000, 'the transfer lands');
    expect(changeSince(world, payer, before)).toMatchObject({ payer: -amount, recipient: amount, landed: 1 });
    await until(async () => (await dailySpend(payer)) === formatUsdc(amount), 3_000, 'daily spend is the one charge');
    // Two more fresh payments fit (3x budget, one used): nothing was held for the losers.
    for (let i = 0; i < 2; i++) {
      const fresh = await paymentFor(payer);
      const res = await postChat(gateway, chatBody(), { 'payment-signature': fresh.payment });
      expect(res.status).toBe(200);
      await res.text();
    }
    expect(await dailySpend(payer)).toBe(formatUsdc(amount * 3n));
    expect(changeSince(world, payer, before)).toMatchObject({ payer: -amount * 3n, recipient: amount * 3n, landed: 3 });
  }, 60_000);

  it('a payer emptying its account after the reservation and before the broadcast: nothing moves, the reservation is released, the same payment later serves once', async () => {
    const payer = fundedPayer(world);
    const { payment, amount } = await paymentFor(payer);
    await setBudget(payer, { daily: Number(formatUsdc(amount)) });
    world.upstreams.openai.script({ kind: 'reply', text: longText(10), firstByteDelayMs: 300, chunkDelayMs: 50 });
    const before = snapshot(world, payer);
    const answer = postChat(gateway, chatBody(), { 'payment-signature': payment });
    await world.upstreams.openai.arrived(0);
    const drain = await drainUsdc(world, payer);
    const res = await answer;
    await res.text();
    expect(res.status).toBe(500);
    expect(changeSince(world, payer, before, [drain.signature])).toMatchObject({ recipient: 0n, landed: 0 });
    expect(await dailySpend(payer)).toBe(formatUsdc(0n));

    // Refunded, the same payment is served; the budget (exactly one payment) admits it: the reservation was released.
    world.upstreams.resetAll();
    world.localnet.fundUsdc(payer.publicKey, 5_000_000n);
    const mid = snapshot(world, payer);
    const served = await postChat(gateway, chatBody(), { 'payment-signature': payment });
    const text = await served.text();
    expect({ status: served.status, text: served.status === 200 ? '' : text }).toEqual({ status: 200, text: '' });
    expect(changeSince(world, payer, mid)).toMatchObject({ payer: -amount, recipient: amount, landed: 1 });
    expect(await dailySpend(payer)).toBe(formatUsdc(amount));
  }, 60_000);

  it('a payer emptying its account mid-stream under a budget: charged once, daily_spend is the charge', async () => {
    const payer = fundedPayer(world);
    const body = chatBody({ stream: true });
    const { payment, amount } = await paymentFor(payer, body);
    await setBudget(payer, { daily: Number(formatUsdc(amount)) });
    world.upstreams.openai.script({ kind: 'reply', text: longText(12), chunkDelayMs: 150 });
    const before = snapshot(world, payer);
    const res = await postChat(gateway, body, { 'payment-signature': payment });
    expect(res.status).toBe(200);
    const stream = new StreamReader(res);
    await stream.next(hasContent);
    await until(() => changeSince(world, payer, before).recipient === amount, 2_000, 'the transfer lands');
    const drain = await drainUsdc(world, payer);
    await stream.rest();
    expect(changeSince(world, payer, before, [drain.signature])).toMatchObject({ payer: -before.payer, recipient: amount, landed: 1 });
    await until(async () => (await dailySpend(payer)) === formatUsdc(amount), 3_000, 'daily spend is the charge');
    // The replay after the stream moves nothing and is not charged against the budget again.
    const again = await postChat(gateway, body, { 'payment-signature': payment });
    await again.text();
    expect(changeSince(world, payer, before, [drain.signature])).toMatchObject({ recipient: amount, landed: 1 });
    expect(await dailySpend(payer)).toBe(formatUsdc(amount));
  }, 60_000);

  it('a blockhash expiring after the reservation and before the first content: released, nothing moved, the budget admits a fresh payment', async () => {
    const payer = fundedPayer(world);
    const { payment, amount } = await paymentFor(payer);
    await setBudget(payer, { daily: Number(formatUsdc(amount)) });
    world.upstreams.openai.script({ kind: 'reply', text: longText(6), firstByteDelayMs: 400 });
    const before = snapshot(world, payer);
    const answer = postChat(gateway, chatBody(), { 'payment-signature': payment });
    await world.upstreams.openai.arrived(0);
    world.localnet.expireBlockhash();
    const res = await answer;
    const text = await res.text();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(text).not.toMatch(/budget/);
    expect(changeSince(world, payer, before)).toMatchObject({ payer: 0n, recipient: 0n, landed: 0 });
    expect(await dailySpend(payer)).toBe(formatUsdc(0n));
    world.upstreams.resetAll();
    const fresh = await paymentFor(payer);
    const served = await postChat(gateway, chatBody(), { 'payment-signature': fresh.payment });
    expect(served.status).toBe(200);
    await served.text();
    expect(changeSince(world, payer, before)).toMatchObject({ payer: -amount, recipient: amount, landed: 1 });
    expect(await dailySpend(payer)).toBe(formatUsdc(amount));
  }, 60_000);
});
