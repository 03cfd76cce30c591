import { formatUsdc } from '../../src/modules/billing/domain/atomic-usdc';
import type { RunningGateway } from '../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../support/gateway-harness';
import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../support/paid-gateway';
import { pgliteStorage } from '../support/storage-env';

/** Budgets on the paid path: a reservation before the provider, refused with 400 before any funds move. */
describe('budgets on the paid chat path', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  const balances = () => ({ payer: world.localnet.usdcBalance(world.payer.publicKey), recipient: world.localnet.usdcBalance(world.recipient.publicKey) });
  const setWalletBudget = (body: Record<string, number>) =>
    fetch(`${gateway.url}/v1/wallets/${world.payer.publicKey.toBase58()}/budget`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: JSON.stringify(body),
    });
  const walletBudget = async () =>
    (await (await fetch(`${gateway.url}/v1/wallets/${world.payer.publicKey.toBase58()}/budget`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).json()) as Record<string, unknown>;

  it('a payment above what the wallet budget has left is 400 budget exceeded, before the provider, with nothing moved', async () => {
    const { header, amount } = await quote(gateway, chatBody());
    expect((await setWalletBudget({ daily: Number(formatUsdc(amount - 1n)) })).status).toBe(200);
    const before = balances();

    const res = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });

    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { type: string; code: string; message: string } };
    expect(error).toMatchObject({ type: 'bad_request', code: 'budget.exceeded', message: expect.stringMatching(new RegExp(`^budget exceeded for wallet ${world.payer.publicKey.toBase58()}`)) });
    expect(world.upstreams.openai.requests).toHaveLength(0);
    expect(balances()).toEqual(before);
  });

  it('within the budget the payment is served, and its settled charge is the window spend', async () => {
    const { header, amount } = await quote(gateway, chatBody());
    expect((await setWalletBudget({ daily: Number(formatUsdc(amount * 2n)) })).status).toBe(200);

    const res = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });

    expect(res.status).toBe(200);
    await res.json();
    expect(await walletBudget()).toMatchObject({ daily_spend: formatUsdc(amount), hourly_spend: formatUsdc(amount), monthly_spend: formatUsdc(amount) });
  });
});
