import { ComputeBudgetProgram, Keypair, SystemProgram } from '@solana/web3.js';
import { escrowPda } from '../../../libs/escrow';
import type { RunningGateway } from '../../../src/gateway';
import { chatCost } from '../../../src/modules/billing/domain/chat-cost';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { escrowConfig, escrowPaymentHeader, type DepositOptions, pollUntil, refundAtExpiry, type EscrowReceiptBody } from '../../support/escrow-payments';
import { chatBody, PAID_MODEL, postChat, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { postJson, SEARCH_PATH } from '../../support/paid-tools';
import { pgliteStorage } from '../../support/storage-env';
import { sseData } from '../../support/upstreams';
import { testConfig } from '../../support/gateway-harness';

describe('the escrow scheme on the local chain (spec 1.5, 2.4, 2.5, 3.2)', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;
  let rates: Awaited<ReturnType<typeof testConfig>>['catalog']['models'][number]['rates'];

  beforeAll(async () => {
    world = await startPaidWorld({ escrow: true });
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_CLAIM_INTERVAL_MS: '50' });
    const model = (await testConfig()).catalog.models.find((candidate) => candidate.id === PAID_MODEL);
    if (!model) throw new Error(`${PAID_MODEL} is not in the catalog`);
    rates = model.rates;
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  const usdc = (owner: Keypair | { publicKey: Keypair['publicKey'] }) => world.localnet.usdcBalance(owner.publicKey);
  const provider = () => (world.escrow as NonNullable<PaidWorld['escrow']>).provider;
  const receipt = async (path: string): Promise<EscrowReceiptBody> => (await (await fetch(`${gateway.url}${path}`)).json()) as EscrowReceiptBody;
  const quoteOf = async (body: Record<string, unknown>): Promise<{ escrow: Record<string, unknown>; amount: bigint; headerSchemes: string[] }> => {
    const res = await postChat(gateway, body);
    expect(res.status).toBe(402);
    const quote = (await res.json()) as { accepts: Array<Record<string, unknown>> };
    const header = JSON.parse(Buffer.from(res.headers.get('payment-required') as string, 'base64').toString()) as { accepts: Array<{ scheme: string }> };
    const escrow = quote.accepts.find((entry) => entry.scheme === 'escrow') as Record<string, unknown>;
    return { escrow, amount: BigInt(escrow.amount as string), headerSchemes: header.accepts.map((entry) => entry.scheme) };
  };
  const pay = async (body: Record<string, unknown>, options: Partial<DepositOptions> = {}) => {
    const { amount } = await quoteOf(body);
    const { header, serviceId } = await escrowPaymentHeader(world, gateway, { amount, ...options });
    return { res: await postChat(gateway, body, { 'payment-signature': header }), amount: options.amount ?? amount, serviceId };
  };

  it('offers escrow in the 402 body only, with the program id; publishes its terms in /v1/escrow/config', async () => {
    const { escrow, headerSchemes } = await quoteOf(chatBody());
    expect(escrow).toMatchObject({ scheme: 'escrow', pay_to: provider().publicKey.toBase58(), escrow_program_id: world.escrow?.programId.toBase58(), max_timeout_seconds: 300 });
    expect(headerSchemes).toEqual(['exact']);
    const config = await escrowConfig(gateway);
    expect(config).toMatchObject({ enabled: true, program_id: world.escrow?.programId.toBase58(), provider: provider().publicKey.toBase58() });
    expect(config.expiry.min_slots_ahead).toBe(Math.ceil((600 + 900) / 0.4));
    expect(config.expiry.max_slots_ahead).toBe(216_000);
    expect(config.current_slot).toBe(world.localnet.slot);
  });

  it('a JSON answer: the provider gains exactly the real cost, the agent the rest, the vault closes; the receipt says so', async () => {
    const agentBefore = usdc(world.payer);
    const { res, amount, serviceId } = await pay(chatBody());
    expect(res.status).toBe(200);
    const completion = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    const cost = chatCost(completion.usage.prompt_tokens, completion.usage.completion_tokens, rates).total;
    expect(cost).toBeLessThan(amount);
    const path = res.headers.get('x-gw-receipt') as string;
    const settled = await pollUntil(
      () => receipt(path),
      (body) => body.status !== 'pending',
    );
    expect(settled).toMatchObject({ status: 'settled', scheme: 'escrow', amount_paid_atomic: amount.toString(), amount_charged_atomic: cost.toString() });
    expect(settled.escrow).toMatchObject({ deposit_atomic: amount.toString(), claimed_atomic: cost.toString(), refunded_atomic: (amount - cost).toString() });
    expect(usdc(provider())).toBeGreaterThanOrEqual(cost);
    expect(usdc(world.payer)).toBe(agentBefore - cost);
    expect(world.localnet.escrowAccount(escrowPda(world.escrow!.programId, world.payer.publicKey, serviceId)[0])).toBeNull();
  });

  it('a stream: claimed at the streamed usage', async () => {
    const providerBefore = usdc(provider());
    const agentBefore = usdc(world.payer);
    const body = chatBody({ stream: true, stream_options: { include_usage: true } });
    const { res } = await pay(body);
    expect(res.status).toBe(200);
    const events = await sseData(res);
    expect(events[events.length - 1]).toBe('[DONE]');
    const usage = events
      .slice(0, -1)
      .map((data) => JSON.parse(data) as { usage?: { prompt_tokens: number; completion_tokens: number } })
      .find((chunk) => chunk.usage)?.usage;
    if (!usage) throw new Error('no usage in the stream');
    const cost = chatCost(usage.prompt_tokens, usage.completion_tokens, rates).total;
    const settled = await pollUntil(
      () => receipt(res.headers.get('x-gw-receipt') as string),
      (r) => r.status !== 'pending',
    );
    expect(settled.amount_charged_atomic).toBe(cost.toString());
    expect(usdc(provider()) - providerBefore).toBe(cost);
    expect(agentBefore - usdc(world.payer)).toBe(cost);
  });

  it('a provider failure after the deposit is 503, never claimed; past expiry the agent refunds the whole deposit', async () => {
    world.upstreams.openai.setDefault({ kind: 'status', status: 503 });
    const agentBefore = usdc(world.payer);
    const { amount } = await quoteOf(chatBody());
    const config = await escrowConfig(gateway);
    const { header, serviceId, expirySlot } = await escrowPaymentHeader(world, gateway, { amount, expirySlot: BigInt(config.expiry.min_slot + 1) });
    const res = await postChat(gateway, chatBody(), { 'payment-signature': header });
    expect(res.status).toBe(503);
    const path = res.headers.get('x-gw-receipt') as string;
    expect(await receipt(path)).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });
    expect(usdc(world.payer)).toBe(agentBefore - amount);
    await refundAtExpiry(world, world.payer, serviceId, expirySlot);
    expect(usdc(world.payer)).toBe(agentBefore);
  });

  it('refuses every bad deposit before the provider is called, moving nothing', async () => {
    const { amount } = await quoteOf(chatBody());
    const config = await escrowConfig(gateway);
    const stranger = Keypair.generate();
    world.localnet.airdrop(stranger.publicKey, 1_000_000_000);
    const cases: Array<[string, Partial<DepositOptions>]> = [
      ['wrong provider', { provider: stranger.publicKey.toBase58() }],
      ['wrong pay_to', { payTo: stranger.publicKey.toBase58() }],
      ['wrong mint', { mint: Keypair.generate().publicKey.toBase58() }],
      ['wrong PDA (service id of the payload differs)', { payloadServiceId: new Uint8Array(32).fill(9) }],
      ['amount below the quote', { amount: amount - 1n }],
      ['expiry too near', { expirySlot: BigInt(config.expiry.min_slot - 10) }],
      ['expiry too far', { expirySlot: BigInt(config.expiry.max_slot + 10) }],
      ['a second instruction', { instructions: (deposit) => [deposit, SystemProgram.transfer({ fromPubkey: world.payer.publicKey, toPubkey: stranger.publicKey, lamports: 1 })] }],
      ['another signer paying the fee', { feePayer: stranger }],
      [
        'a compute budget instruction is fine but a memo is not',
        {
          instructions: (deposit) => [
            ComputeBudgetProgram.setComputeUnitLimit({ units: 100_000 }),
            deposit,
            SystemProgram.transfer({ fromPubkey: world.payer.publicKey, toPubkey: world.payer.publicKey, lamports: 0 }),
          ],
        },
      ],
    ];
    const before = { agent: usdc(world.payer), provider: usdc(provider()) };
    const calls = world.upstreams.openai.requests.length;
    for (const [name, options] of cases) {
      const { header } = await escrowPaymentHeader(world, gateway, { amount, ...options });
      const res = await postChat(gateway, chatBody(), { 'payment-signature': header });
      expect({ name, status: res.status >= 400 && res.status < 500 }).toEqual({ name, status: true });
    }
    expect(world.upstreams.openai.requests.length).toBe(calls);
    expect({ agent: usdc(world.payer), provider: usdc(provider()) }).toEqual(before);
  });

  it('a replayed deposit and a reused service id are refused; an escrow payload on /v1/search is a 400', async () => {
    const { amount } = await quoteOf(chatBody());
    const { header, serviceId } = await escrowPaymentHeader(world, gateway, { amount });
    expect((await postChat(gateway, chatBody(), { 'payment-signature': header })).status).toBe(200);
    const replay = await postChat(gateway, chatBody(), { 'payment-signature': header });
    expect(replay.status).toBe(402);
    const reused = await escrowPaymentHeader(world, gateway, { amount, serviceId });
    const again = await postChat(gateway, chatBody(), { 'payment-signature': reused.header });
    expect(again.status).toBe(402);
    const search = await escrowPaymentHeader(world, gateway, { amount: 10_500n, resourceUrl: SEARCH_PATH });
    const tool = await postJson(gateway, SEARCH_PATH, { query: 'q' }, { 'payment-signature': search.header });
    expect(tool.status).toBe(400);
    expect(((await tool.json()) as { error: { code: string } }).error.code).toBe('payment.scheme_payload_mismatch');
  });

  it('a wallet budget reserves the deposit and, once claimed, counts only the claim', async () => {
    const agent = Keypair.generate();
    world.localnet.airdrop(agent.publicKey, 1_000_000_000);
    world.localnet.fundUsdc(agent.publicKey, 5_000_000n);
    const { amount } = await quoteOf(chatBody());
    const admin = { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const budgetPath = `${gateway.url}/v1/wallets/${agent.publicKey.toBase58()}/budget`;
    // Room for one deposit exactly.
    expect((await fetch(budgetPath, { method: 'PUT', headers: admin, body: JSON.stringify({ daily: Number(amount) / 1_000_000 }) })).status).toBe(200);
    const { res } = await pay(chatBody(), { agent });
    expect(res.status).toBe(200);
    const completion = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    const cost = chatCost(completion.usage.prompt_tokens, completion.usage.completion_tokens, rates).total;
    await pollUntil(
      () => receipt(res.headers.get('x-gw-receipt') as string),
      (body) => body.status === 'settled',
    );
    const budget = (await (await fetch(budgetPath, { headers: admin })).json()) as { daily_spend: string };
    expect(budget.daily_spend).toBe((Number(cost) / 1_000_000).toFixed(6));
    // The claim left less than a whole deposit: the next deposit of the quote is over the budget, and nothing moves.
    const before = usdc(agent);
    const { res: refused } = await pay(chatBody(), { agent });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('budget.exceeded');
    expect(usdc(agent)).toBe(before);
  });

  it('reports its health to the admin', async () => {
    const read = async () => (await fetch(`${gateway.url}/v1/escrow/health`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).json() as Promise<{ claims: { pending_in_queue: number } }>;
    // The previous test's claim may still be on its way.
    const health = await pollUntil(read, (body) => body.claims.pending_in_queue === 0);
    expect(health).toMatchObject({ status: 'ok', claims: { failed: 0, pending_in_queue: 0 }, fee_payer_wallets: 1, breaker: { state: 'closed' } });
    expect((await fetch(`${gateway.url}/v1/escrow/health`)).status).toBe(401);
    const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
    expect(metrics).toMatch(/^gw_escrow_claims\{status="completed"\} [1-9]/m);
    expect(metrics).toMatch(/^gw_escrow_claim_breaker_open 0$/m);
  });
});
