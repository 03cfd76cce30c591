import { Keypair, LAMPORTS_PER_SOL, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { decodePaymentResponseHeader } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { a2aCall, userMessage, type A2ATaskBody } from '../../support/a2a-client';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { escrowConfig, escrowPaymentHeader, pollUntil, refundAtExpiry, type EscrowReceiptBody } from '../../support/escrow-payments';
import { chatBody, PAID_MODEL, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { startRpcFaultProxy, type RpcFaultProxy } from '../../support/rpc-fault-proxy';
import { serviceAvailable } from '../../support/services';
import { readReceiptsUntil, sleep } from '../../support/settlement-probes';
import { pgliteStorage, postgresStorage, type TestStorage } from '../../support/storage-env';

/**
 * Escrow under faults (docs/decisions.md, "Escrow"): an escrow call is bounded like an `exact` one
 * until its first content; its claim is durable from the first content; claim outcomes are read
 * from the chain, all attempts of a claim included; a claim is worked under a lease renewed while it
 * is worked; claim fees are bounded. Every test reads the chain and the gateway's public routes.
 */

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
/** The claim processor's windows, shortened so that the suite runs in seconds. */
const FAST_CLAIMS = { GW_CLAIM_INTERVAL_MS: '50', GW_CLAIM_RETRY_BASE_MS: '20', GW_LEASE_TTL_SECS: '2', GW_SETTLEMENT_CONFIRM_SECS: '1', GW_RECONCILE_INTERVAL_SECS: '1', GW_SHUTDOWN_GRACE_SECS: '1' };

interface ErrorBody {
  error: { type: string; message: string; code: string };
}

describe('escrow under faults', () => {
  let world: PaidWorld;
  let proxy: RpcFaultProxy;
  const gateways: RunningGateway[] = [];
  const storages: TestStorage[] = [];

  beforeAll(async () => {
    world = await startPaidWorld({ escrow: true });
    proxy = await startRpcFaultProxy(world.localnet.url);
  });
  afterEach(async () => {
    proxy.mode({ kind: 'pass' });
    await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
    world.upstreams.resetAll();
  });
  afterAll(async () => {
    await Promise.all(storages.map((storage) => storage.drop()));
    await proxy.close();
    await world.close();
  });

  /** The storage the last gateway started on, for another gateway on the same one. */
  let lastStorage: TestStorage | undefined;
  /** A gateway on `storage` (embedded PGlite unless told), reaching the chain through the fault proxy. */
  const start = async (env: Record<string, string> = {}, storage?: TestStorage): Promise<RunningGateway> => {
    const opened = storage ?? (await pgliteStorage());
    lastStorage = opened;
    const gateway = await startPaidGateway(world, { ...opened.env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_SOLANA_RPC_URL: proxy.url, ...FAST_CLAIMS, ...env });
    gateways.push(gateway);
    return gateway;
  };

  const provider = (): Keypair => (world.escrow as NonNullable<PaidWorld['escrow']>).provider;
  const usdc = (key: Keypair): bigint => world.localnet.usdcBalance(key.publicKey);

  /** A fresh agent with SOL for fees and rents and `usdcAtomic` USDC. */
  const newAgent = (usdcAtomic = 5_000_000n): Keypair => {
    const agent = Keypair.generate();
    world.localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL);
    world.localnet.fundUsdc(agent.publicKey, usdcAtomic);
    return agent;
  };

  /** The escrow entry's amount of the 402 for `body`, or null when the 402 offers no escrow. */
  const escrowOffer = async (gateway: RunningGateway, body: Record<string, unknown>): Promise<bigint | null> => {
    const res = await postChat(gateway, body);
    expect(res.status).toBe(402);
    const { accepts } = (await res.json()) as { accepts: Array<{ scheme: string; amount: string }> };
    const entry = accepts.find((offer) => offer.scheme === 'escrow');
    return entry ? BigInt(entry.amount) : null;
  };

  /** An escrow payment of `body`'s quote by `agent`, ready to send. */
  const deposit = async (gateway: RunningGateway, body: Record<string, unknown>, agent: Keypair, amount?: bigint) => {
    const quoted = amount ?? (await escrowOffer(gateway, body));
    if (quoted === null) throw new Error('the 402 offers no escrow');
    const signed = await escrowPaymentHeader(world, gateway, { amount: quoted, agent });
    return { ...signed, amount: quoted };
  };

  const receipt = async (gateway: RunningGateway, path: string): Promise<EscrowReceiptBody & { delivery: string | null; transaction_signature: string }> =>
    (await (await fetch(`${gateway.url}${path}`)).json()) as EscrowReceiptBody & { delivery: string | null; transaction_signature: string };
  const finalReceipt = (gateway: RunningGateway, path: string) =>
    pollUntil(
      () => receipt(gateway, path),
      (body) => body.status !== 'pending',
      10_000,
      500,
    );

  /** Fee payers beside the world's, for a gateway whose claim attempts must differ (each attempt takes the next fee payer). */
  const moreFeePayers = [Keypair.generate(), Keypair.generate()];
  const feePayerKeys = (): string => [world.feePayer, ...moreFeePayers].map((key) => bs58.encode(key.secretKey)).join(',');

  /** The claim transactions sent to the node (paid by one of the gateway's fee payers), by escrow address. */
  const claimSends = new Map<string, number>();
  const countClaims = (params: unknown): boolean => {
    const [encoded] = params as [string];
    const keys = VersionedTransaction.deserialize(Buffer.from(encoded, 'base64')).message.staticAccountKeys;
    if (![world.feePayer, ...moreFeePayers].some((feePayer) => keys[0].equals(feePayer.publicKey))) return false;
    // The claim's accounts begin with the escrow (libs/escrow, claimInstruction).
    for (const key of keys) claimSends.set(key.toBase58(), (claimSends.get(key.toBase58()) ?? 0) + 1);
    return true;
  };

  it('a deposit the node takes and does not land within the window: 402 payment.deposit_unconfirmed naming the deposit as a terminal failure, nothing served or claimed; a new deposit is served', async () => {
    const gateway = await start();
    const agent = newAgent();
    const body = chatBody();
    const { header } = await deposit(gateway, body, agent);
    proxy.mode({ kind: 'accept-late' });
    const res = await postChat(gateway, body, { 'payment-signature': header });
    proxy.mode({ kind: 'pass' });

    expect(res.status).toBe(402);
    expect(((await res.json()) as ErrorBody).error.code).toBe('payment.deposit_unconfirmed');
    expect(world.upstreams.openai.requests).toHaveLength(0);
    const path = res.headers.get('x-gw-receipt') as string;
    const given = await receipt(gateway, path);
    expect(given).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });
    // Given up and never claimed, so signing a new deposit is safe: the terminal reason, naming the deposit.
    expect(decodePaymentResponseHeader(res.headers.get('payment-response') as string)).toEqual({
      success: false,
      errorReason: 'post_settlement_transfer_not_confirmed',
      transaction: given.transaction_signature,
      network: expect.stringMatching(/^solana:/),
    });
    const again = await deposit(gateway, body, agent);
    expect((await postChat(gateway, body, { 'payment-signature': again.header })).status).toBe(200);
  }, 30_000);

  describe('F5: until its first content an escrow call is bounded like an exact one', () => {
    const timedOut = async (stream: boolean) => {
      const gateway = await start({ GW_REQUEST_TIMEOUT_SECS: '2' });
      const agent = newAgent();
      const body = chatBody({ stream });
      const { header, amount, serviceId, expirySlot } = await deposit(gateway, body, agent);
      const agentBefore = usdc(agent);
      const providerBefore = usdc(provider());
      world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 3_500 });

      const res = await postChat(gateway, body, { 'payment-signature': header });
      expect(res.status).toBe(408);
      expect(((await res.json()) as ErrorBody).error.code).toBe('request.timeout');
      const path = res.headers.get('x-gw-receipt');
      expect(path).toMatch(/^\/v1\/receipts\//);
      // The upstream was stopped at the timeout, not left to answer.
      expect((await world.upstreams.openai.ended(0)).aborted).toBe(true);
      const ended = await finalReceipt(gateway, path as string);
      expect(ended).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });

      // Nothing claimed: the deposit still sits whole in its escrow, and the gateway shuts down without waiting on anything.
      await sleep(500);
      expect(world.localnet.escrowAccount(ended.escrow?.address as string)).toMatchObject({ amount });
      gateways.splice(gateways.indexOf(gateway), 1);
      await gateway.close();

      // At expiry the agent takes the whole deposit back: its loss is the receipt's 0.
      expect(usdc(agent)).toBe(agentBefore - amount);
      await refundAtExpiry(world, agent, serviceId, expirySlot);
      expect(usdc(agent)).toBe(agentBefore);
      expect(usdc(provider())).toBe(providerBefore);
    };

    it('as JSON: a 408 naming its receipt, the upstream aborted, nothing claimed, receipt not_charged, the agent refunded whole', async () => {
      await timedOut(false);
    });

    it('as a stream: the same, and the gateway shuts down with nothing left waiting', async () => {
      await timedOut(true);
    });

    it('shutdown before the first content stops it too: a 503 naming its receipt, the upstream aborted, receipt not_charged', async () => {
      const gateway = await start({ GW_SHUTDOWN_GRACE_SECS: '1' });
      const agent = newAgent();
      const { header } = await deposit(gateway, chatBody(), agent);
      world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 5_000 });
      const answer = postChat(gateway, chatBody(), { 'payment-signature': header });
      await world.upstreams.openai.arrived(0);
      gateways.splice(gateways.indexOf(gateway), 1);
      const closing = gateway.close();
      const res = await answer;
      expect(res.status).toBe(503);
      expect(((await res.json()) as ErrorBody).error.code).toBe('server.shutting_down');
      const path = res.headers.get('x-gw-receipt') as string;
      expect(path).toMatch(/^\/v1\/receipts\//);
      expect((await world.upstreams.openai.ended(0)).aborted).toBe(true);
      await closing;
      // The next gateway on the same storage shows what became of it.
      const next = await start({}, lastStorage);
      expect(await finalReceipt(next, path)).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });
    });

    it('exact too: a 408 after the payment was accepted names its receipt, which says nothing was charged', async () => {
      const gateway = await start({ GW_REQUEST_TIMEOUT_SECS: '1' });
      const body = chatBody();
      const { header } = await quote(gateway, body);
      const payer = newAgent();
      const before = usdc(payer);
      world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 2_000 });
      const res = await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header, { payer }) });
      expect(res.status).toBe(408);
      const path = res.headers.get('x-gw-receipt') as string;
      expect(path).toMatch(/^\/v1\/receipts\//);
      expect(await finalReceipt(gateway, path)).toMatchObject({ status: 'not_charged', scheme: 'exact', amount_charged_atomic: '0' });
      expect(usdc(payer)).toBe(before);
    });

    it('a timed-out escrow call releases its budget line: the next deposit within the same daily budget is served', async () => {
      const gateway = await start({ GW_REQUEST_TIMEOUT_SECS: '2' });
      const agent = newAgent();
      const first = await deposit(gateway, chatBody(), agent);
      const budget = `${gateway.url}/v1/wallets/${agent.publicKey.toBase58()}/budget`;
      expect((await fetch(budget, { method: 'PUT', headers: admin, body: JSON.stringify({ daily: Number(first.amount) / 1_000_000 }) })).status).toBe(200);
      world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 3_500 });
      expect((await postChat(gateway, chatBody(), { 'payment-signature': first.header })).status).toBe(408);
      await world.upstreams.openai.ended(0);

      const second = await deposit(gateway, chatBody(), agent, first.amount);
      const res = await postChat(gateway, chatBody(), { 'payment-signature': second.header });
      expect(res.status).toBe(200);
      const settled = await finalReceipt(gateway, res.headers.get('x-gw-receipt') as string);
      expect(settled.status).toBe('settled');
    });

    it('a client that leaves before the first content does not stop it: generated, claimed, kept for redelivery', async () => {
      const gateway = await start({ GW_REQUEST_TIMEOUT_SECS: '5' });
      const agent = newAgent();
      const body = chatBody();
      const agentBefore = usdc(agent);
      const { header } = await deposit(gateway, body, agent);
      world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 800 });
      const leaving = new AbortController();
      const answer = postChat(gateway, body, { 'payment-signature': header }, leaving.signal).catch(() => null);
      await world.upstreams.openai.arrived(0);
      leaving.abort();
      await answer;
      const upstream = await world.upstreams.openai.ended(0);
      expect(upstream.aborted).toBe(false);

      const resend = await postChat(gateway, body, { 'payment-signature': header });
      expect(resend.status).toBe(200);
      expect(resend.headers.get('x-gw-redelivered')).toBe('true');
      const settled = await finalReceipt(gateway, resend.headers.get('x-gw-receipt') as string);
      expect(settled).toMatchObject({ status: 'settled', delivery: 'client_disconnected' });
      const claimed = BigInt(settled.amount_charged_atomic);
      expect(claimed).toBeGreaterThan(0n);
      // The claim paid the provider and sent the rest of the deposit back: the agent lost exactly the claim.
      expect(agentBefore - usdc(agent)).toBe(claimed);
    });
  });

  it('F1: a claim the node took but that landed late, while its retry failed on the closed escrow, settles the receipt at what landed', async () => {
    // Three fee payers: each attempt is paid by the next, so no retry is the same transaction as an attempt before it (a cluster's blockhash would move on too).
    for (const feePayer of moreFeePayers) world.localnet.airdrop(feePayer.publicKey, LAMPORTS_PER_SOL);
    const gateway = await start({ GW_FEE_PAYER_KEYS: feePayerKeys() });
    const agent = newAgent();
    const agentBefore = usdc(agent);
    const providerBefore = usdc(provider());
    let claims = 0;
    proxy.mode({
      kind: 'accept-late',
      when: (params) => {
        const claim = countClaims(params);
        if (claim) claims += 1;
        return claim;
      },
    });
    const { header } = await deposit(gateway, chatBody(), agent);
    const res = await postChat(gateway, chatBody(), { 'payment-signature': header });
    expect(res.status).toBe(200);
    const path = res.headers.get('x-gw-receipt') as string;
    // The first claim was taken but not landed; the gateway, not seeing it land, sent another, paid by another fee payer.
    await pollUntil(
      async () => claims,
      (count) => count >= 2,
      10_000,
    );
    expect((await receipt(gateway, path)).status).toBe('pending');
    // The node now lands them in order: the first claim pays; the second finds the escrow closed, as does any later attempt.
    proxy.mode({ kind: 'pass' });

    const settled = await finalReceipt(gateway, path);
    expect(settled.status).toBe('settled');
    const claimed = BigInt(settled.amount_charged_atomic);
    expect(claimed).toBeGreaterThan(0n);
    expect(settled.escrow).toMatchObject({ claimed_atomic: claimed.toString() });
    // What the agent lost is what the receipt says it was charged, and what the provider gained.
    expect(agentBefore - usdc(agent)).toBe(claimed);
    expect(usdc(provider()) - providerBefore).toBe(claimed);
    const landed = world.localnet.sentTransactions().filter((sent) => sent.signature === settled.escrow?.claim_signature);
    expect(landed).toEqual([expect.objectContaining({ err: null })]);
  });

  describe('F3: claim fees are bounded', () => {
    it('escrow is offered and accepted only for quotes at or above GW_ESCROW_MIN_ATOMIC; below it a deposit is 400 and moves nothing', async () => {
      const byDefault = await start({ GW_ESCROW_MIN_ATOMIC: '' });
      expect(await escrowConfig(byDefault)).toMatchObject({ enabled: true, offered: true, min_atomic: '31500' });
      const small = chatBody({ max_tokens: 40 });
      const large = chatBody({ max_tokens: 50 });
      // The default minimum (the fee of one claim at 150 USDC per SOL, times 21) is above these quotes.
      expect(await escrowOffer(byDefault, large)).toBeNull();

      const exactQuote = async (body: Record<string, unknown>): Promise<bigint> => {
        const res = await postChat(byDefault, body);
        return BigInt(((await res.json()) as { accepts: Array<{ amount: string }> }).accepts[0].amount);
      };
      const minimum = await exactQuote(large);
      const below = await exactQuote(small);
      expect(below).toBeLessThan(minimum);
      const gateway = await start({ GW_ESCROW_MIN_ATOMIC: minimum.toString() });
      expect(await escrowOffer(gateway, large)).toBe(minimum);
      expect(await escrowOffer(gateway, small)).toBeNull();

      const agent = newAgent();
      const before = usdc(agent);
      const refused = await deposit(gateway, small, agent, below);
      const res = await postChat(gateway, small, { 'payment-signature': refused.header });
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).error).toEqual({
        type: 'bad_request',
        code: 'payment.escrow_below_minimum',
        param: null,
        message: expect.stringContaining(`at least ${minimum} atomic USDC`),
      });
      expect(usdc(agent)).toBe(before);
      expect(world.upstreams.openai.requests).toHaveLength(0);

      const at = await deposit(gateway, large, agent);
      const served = await postChat(gateway, large, { 'payment-signature': at.header });
      expect(served.status).toBe(200);
      expect((await finalReceipt(gateway, served.headers.get('x-gw-receipt') as string)).status).toBe('settled');
    });

    it('on A2A an escrow payment below the minimum is -32007, and the task waits for another payment', async () => {
      const gateway = await start({ GW_ESCROW_MIN_ATOMIC: '100000000' });
      const quoted = (await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL, max_tokens: 50 }))).body.result as A2ATaskBody;
      const required = quoted.status.message?.metadata?.['x402.payment.required'] as { accepts: Array<{ scheme: string; amount: string }> };
      expect(required.accepts.map((entry) => entry.scheme)).toEqual(['exact']);
      const agent = newAgent();
      const before = usdc(agent);
      const { header } = await escrowPaymentHeader(world, gateway, { amount: BigInt(required.accepts[0].amount), agent, resourceUrl: '/a2a' });
      const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as unknown;
      const paid = await a2aCall(gateway, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, quoted.id));
      expect(paid.body.error).toMatchObject({ code: -32007 });
      expect(usdc(agent)).toBe(before);
      expect(world.upstreams.openai.requests).toHaveLength(0);
      const task = await a2aCall(gateway, 'tasks/get', { id: quoted.id });
      expect(task.body.result?.status.state).toBe('input-required');
    });

    it('past GW_CLAIM_LAMPORTS_PER_HOUR new offers and deposits stop: deposits accepted together never pass it, and claims for answers served are all sent, retries included', async () => {
      // Room for two claims' fees (10,000 lamports each) in the window; three agents deposit at once, their answers slow to begin.
      const gateway = await start({ GW_CLAIM_LAMPORTS_PER_HOUR: '20000' });
      const agents = [newAgent(), newAgent(), newAgent()];
      const body = chatBody();
      const providerBefore = usdc(provider());
      const before = agents.map((agent) => usdc(agent));
      world.upstreams.openai.setDefault({ kind: 'reply', firstByteDelayMs: 500 });
      // The first attempt of every claim is taken by the node but never lands: each claim needs a second attempt, past the bound.
      let claims = 0;
      proxy.mode({ kind: 'accept-late', when: (params) => countClaims(params) && ++claims <= 2 });
      const deposits = await Promise.all(agents.map((agent) => deposit(gateway, body, agent)));
      const answers = await Promise.all(deposits.map(({ header }) => postChat(gateway, body, { 'payment-signature': header })));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 400]);
      const refused = answers.findIndex((res) => res.status === 400);
      expect(((await answers[refused].json()) as ErrorBody).error.code).toBe('payment.escrow_suspended');
      expect(usdc(agents[refused])).toBe(before[refused]);

      const served = answers.filter((res) => res.status === 200);
      const settled = await Promise.all(served.map((res) => finalReceipt(gateway, res.headers.get('x-gw-receipt') as string)));
      expect(settled.map((receiptBody) => receiptBody.status)).toEqual(['settled', 'settled']);
      const claimed = settled.reduce((sum, receiptBody) => sum + BigInt(receiptBody.amount_charged_atomic), 0n);
      expect(usdc(provider()) - providerBefore).toBe(claimed);

      expect(await escrowConfig(gateway)).toMatchObject({ enabled: true, offered: false });
      expect(await escrowOffer(gateway, body)).toBeNull();
      const late = newAgent();
      const lateBefore = usdc(late);
      const turnedAway = await postChat(gateway, body, { 'payment-signature': (await deposit(gateway, body, late, deposits[0].amount)).header });
      expect(turnedAway.status).toBe(400);
      expect(((await turnedAway.json()) as ErrorBody).error.code).toBe('payment.escrow_suspended');
      expect(usdc(late)).toBe(lateBefore);

      // Two claims counted at acceptance, and their second attempts on top: the bound never held back a claim for an answer served.
      const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: admin })).text();
      expect(metrics).toMatch(/^gw_escrow_claim_fees_window_lamports 40000$/m);
      expect(metrics).toMatch(/^gw_escrow_offer_suspended 1$/m);
    });
  });

  describeWithPostgres('two instances sharing one claim queue (PostgreSQL)', () => {
    it('a claim is worked under a lease renewed while it is worked: with slow claim sends, every escrow still gets exactly one claim', async () => {
      const storage = await postgresStorage();
      storages.push(storage);
      // Leases of 1 s; each claim's send takes 2.5 s. Passes 2 s apart, so several claims are due at each.
      const env = { GW_LEASE_TTL_SECS: '1', GW_CLAIM_INTERVAL_MS: '2000' };
      const instances = [await start(env, storage), await start(env, storage)];
      proxy.mode({ kind: 'slow', delayMs: 2_500, methods: ['sendTransaction'], when: countClaims });
      const body = chatBody();
      const agents = [newAgent(), newAgent(), newAgent(), newAgent()];
      const deposits = await Promise.all(agents.map((agent, index) => deposit(instances[index % 2], body, agent)));
      const answers = await Promise.all(deposits.map(({ header }, index) => postChat(instances[index % 2], body, { 'payment-signature': header })));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200]);
      const paths = answers.map((res) => res.headers.get('x-gw-receipt') as string);
      const finished = (await readReceiptsUntil(instances, paths, (read) => read.status !== 'pending', 40_000)).map(({ receipt: read }) => read as unknown as EscrowReceiptBody);
      expect(finished.map((receiptBody) => receiptBody.status)).toEqual(['settled', 'settled', 'settled', 'settled']);
      expect(finished.map((receiptBody) => claimSends.get(receiptBody.escrow?.address as string) ?? 0)).toEqual([1, 1, 1, 1]);
    }, 60_000);
  });
});
