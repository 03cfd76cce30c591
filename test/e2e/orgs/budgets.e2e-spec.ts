import { formatUsdc } from '../../../src/modules/billing/domain/atomic-usdc';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { paidGatewayOnPglite } from '../../support/paid-gateway-hooks';
import { chatBody, postChat, quote, specPaymentHeader } from '../../support/paid-gateway';

/** Budgets on the paid path: a reservation before the provider, refused with 400 before any funds move. */
describe('budgets on the paid chat path', () => {
  const paid = paidGatewayOnPglite();

  const balances = () => ({ payer: paid.world.localnet.usdcBalance(paid.world.payer.publicKey), recipient: paid.world.localnet.usdcBalance(paid.world.recipient.publicKey) });
  const setWalletBudget = (body: Record<string, number>) =>
    fetch(`${paid.gateway.url}/v1/wallets/${paid.world.payer.publicKey.toBase58()}/budget`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: JSON.stringify(body),
    });
  const walletBudget = async () =>
    (await (await fetch(`${paid.gateway.url}/v1/wallets/${paid.world.payer.publicKey.toBase58()}/budget`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).json()) as Record<
      string,
      unknown
    >;

  it('a payment above what the wallet budget has left is 400 budget exceeded, before the provider, with nothing moved', async () => {
    const { header, amount } = await quote(paid.gateway, chatBody());
    expect((await setWalletBudget({ daily: Number(formatUsdc(amount - 1n)) })).status).toBe(200);
    const before = balances();

    const res = await postChat(paid.gateway, chatBody(), { 'payment-signature': specPaymentHeader(paid.world, header) });

    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { type: string; code: string; message: string } };
    expect(error).toMatchObject({ type: 'bad_request', code: 'budget.exceeded', message: expect.stringMatching(new RegExp(`^budget exceeded for wallet ${paid.world.payer.publicKey.toBase58()}`)) });
    expect(paid.world.upstreams.openai.requests).toHaveLength(0);
    expect(balances()).toEqual(before);
  });

  it('within the budget the payment is served, and its settled charge is the window spend', async () => {
    const { header, amount } = await quote(paid.gateway, chatBody());
    expect((await setWalletBudget({ daily: Number(formatUsdc(amount * 2n)) })).status).toBe(200);

    const res = await postChat(paid.gateway, chatBody(), { 'payment-signature': specPaymentHeader(paid.world, header) });

    expect(res.status).toBe(200);
    await res.json();
    expect(await walletBudget()).toMatchObject({ daily_spend: formatUsdc(amount), hourly_spend: formatUsdc(amount), monthly_spend: formatUsdc(amount) });
  });

  it('wallet stats: the charged requests of the last days, in all, by model and by UTC day; for the admin token, or a key of an org with the wallet in a team', async () => {
    const { header, amount } = await quote(paid.gateway, chatBody());
    await setWalletBudget({});
    const wallet = paid.world.payer.publicKey.toBase58();
    const stats = async (token: string, query = '?days=1') => {
      const res = await fetch(`${paid.gateway.url}/v1/wallets/${wallet}/stats${query}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { code: string } } };
    };
    const before = (await stats(TEST_ADMIN_TOKEN)).body as { requests: number };
    const served = await postChat(paid.gateway, chatBody(), { 'payment-signature': specPaymentHeader(paid.world, header) });
    expect(served.status).toBe(200);
    await served.json();

    // The spend row is written in the background: wait for it.
    let after = (await stats(TEST_ADMIN_TOKEN)).body;
    for (let tries = 0; tries < 50 && (after.requests as number) === before.requests; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = (await stats(TEST_ADMIN_TOKEN)).body;
    }
    expect(after.requests).toBe(before.requests + 1);
    expect(after).toMatchObject({ spend: expect.stringMatching(/^\d+\.\d{6}$/), tokens: expect.any(Number) });
    expect(after.by_model).toEqual([expect.objectContaining({ model: chatBody().model, requests: after.requests })]);
    expect(after.by_day).toEqual([expect.objectContaining({ date: new Date().toISOString().slice(0, 10), requests: after.requests, spend: after.spend })]);
    expect(BigInt((after.spend as string).replace('.', ''))).toBeGreaterThanOrEqual(amount);

    const admin = (path: string, body: unknown) =>
      fetch(`${paid.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, body: JSON.stringify(body) }).then(
        async (res) => (await res.json()) as Record<string, string>,
      );
    const withWallet = (await admin('/v1/orgs', { name: 'Has it', owner_wallet: wallet })).id;
    const team = (await admin(`/v1/orgs/${withWallet}/teams`, { name: 'payers' })).id;
    await admin(`/v1/orgs/${withWallet}/teams/${team}/wallets`, { wallet_address: wallet });
    const memberKey = (await admin(`/v1/orgs/${withWallet}/api-keys`, { name: 'reader', role: 'member' })).key;
    const without = (await admin('/v1/orgs', { name: 'Lacks it', owner_wallet: wallet })).id;
    const otherKey = (await admin(`/v1/orgs/${without}/api-keys`, { name: 'reader', role: 'owner' })).key;

    expect((await stats(memberKey)).body).toMatchObject({ requests: after.requests });
    const refused = await stats(otherKey);
    expect(refused.status).toBe(404);
    expect(refused.body.error?.code).toBe('org.wallet_not_found');
    for (const query of ['?days=0', '?days=91', '?days=x']) expect((await stats(TEST_ADMIN_TOKEN, query)).body.error?.code).toBe('request.invalid_query');
  });
});
