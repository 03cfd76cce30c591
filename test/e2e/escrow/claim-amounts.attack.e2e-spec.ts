import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import type { RunningGateway } from '../../../src/gateway';
import { escrowPaymentHeader, pollUntil, type EscrowReceiptBody } from '../../support/escrow-payments';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, postChat, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { pgliteStorage } from '../../support/storage-env';

/**
 * Adversarial probes of the escrow claim: what an agent that over-deposits is charged, and what a
 * budget counts once a claim moved money.
 */

describe('escrow claims under attack', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld({ escrow: true });
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_CLAIM_INTERVAL_MS: '50' });
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  const receipt = async (path: string): Promise<EscrowReceiptBody> => (await (await fetch(`${gateway.url}${path}`)).json()) as EscrowReceiptBody;
  const quoteAmount = async (body: Record<string, unknown>): Promise<bigint> => {
    const res = await postChat(gateway, body);
    const quote = (await res.json()) as { accepts: Array<{ scheme: string; amount: string }> };
    return BigInt((quote.accepts.find((entry) => entry.scheme === 'escrow') as { amount: string }).amount);
  };

  it('a claim never exceeds the quote the agent agreed to, however much it deposited (usage unknown)', async () => {
    const body = chatBody();
    const quote = await quoteAmount(body);
    // The agent over-deposits (any amount >= the quote is accepted); the provider reports no usage.
    world.upstreams.openai.setDefault({ kind: 'reply', usage: false });
    const deposit = quote * 20n;
    const { header } = await escrowPaymentHeader(world, gateway, { amount: deposit });
    const res = await postChat(gateway, body, { 'payment-signature': header });
    expect(res.status).toBe(200);
    await res.json();
    const final = await pollUntil(
      () => receipt(res.headers.get('x-gw-receipt') as string),
      (r) => r.status !== 'pending',
    );
    expect(final.status).toBe('settled');
    expect(BigInt(final.amount_charged_atomic)).toBeLessThanOrEqual(quote);
  });

  it('under a wallet budget, daily_spend is what the claim took, never the deposit; a claim that moved money is never released', async () => {
    const agent = Keypair.generate();
    world.localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL);
    world.localnet.fundUsdc(agent.publicKey, 5_000_000n);
    const admin = (method: string, path: string, json?: unknown) =>
      fetch(`${gateway.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
    expect((await admin('PUT', `/v1/wallets/${agent.publicKey.toBase58()}/budget`, { daily: 1 })).status).toBe(200);
    const body = chatBody();
    const quote = await quoteAmount(body);
    const { header } = await escrowPaymentHeader(world, gateway, { agent, amount: quote * 3n });
    const before = world.localnet.usdcBalance(agent.publicKey);
    const res = await postChat(gateway, body, { 'payment-signature': header });
    expect(res.status).toBe(200);
    await res.json();
    const final = await pollUntil(
      () => receipt(res.headers.get('x-gw-receipt') as string),
      (r) => r.status !== 'pending',
    );
    const moved = before - world.localnet.usdcBalance(agent.publicKey);
    const budget = (await (await admin('GET', `/v1/wallets/${agent.publicKey.toBase58()}/budget`)).json()) as { daily_spend: string };
    expect({ status: final.status, charged: final.amount_charged_atomic, spend: Math.round(Number(budget.daily_spend) * 1e6).toString() }).toEqual({
      status: 'settled',
      charged: moved.toString(),
      spend: moved.toString(),
    });
  });
});
