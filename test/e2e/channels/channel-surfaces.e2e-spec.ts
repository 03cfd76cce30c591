import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import { Keypair } from '@solana/web3.js';
import Redis from 'ioredis';
import {
  a2aDigestInput,
  ChannelSigner,
  channelIdBytes,
  channelPaymentPayload,
  closeChannel,
  readRpcRefusal,
  readTaskQuote,
  wrapFetchWithChannel,
  type ChannelFetch,
} from '../../../libs/channel-client';
import type { PaymentRequiredBody } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { a2aPaymentPayload, sdkTasks } from '../../support/a2a-client';
import { channelAgent, channelEnv, channelFundingTx, channelWhen, openChannel, readChannel } from '../../support/channel-payments';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { startHttpsService, type HttpsService, type SeenRequest } from '../../support/https-service';
import { chatBody, PAID_MODEL, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { PRICE_PATH, SEARCH_PATH, SEARCH_PRICE, TOKEN_PRICE_PRICE } from '../../support/paid-tools';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { ScriptedResolver } from '../../support/scripted-resolver';
import { serviceAvailable } from '../../support/services';
import { postgresStorage, type TestStorage } from '../../support/storage-env';

const describeWithServices = serviceAvailable('postgres') && serviceAvailable('redis') ? describe : describe.skip;
const PROXY_PATH = '/v1/services/lookup/proxy';
/** The registered price, 0.002 USDC, plus the 5 % fee. */
const PROXY_PRICE = 2_100n;
const DEPOSIT = 2_000_000n;
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/**
 * Channel draws beyond chat and Messages (spec 3.1, 4.7, 4.8): the paid tools, the paid proxy and
 * A2A, each deliver then record, with an upstream failure drawing nothing; then one channel across
 * all six surfaces and its close, to the atomic unit.
 */
describeWithServices('channel draws on the tools, the paid proxy and A2A (local chain, PostgreSQL, a private Redis)', () => {
  const resolver = new ScriptedResolver();
  const custody = Keypair.generate();
  let world: PaidWorld;
  let redis: PrivateRedis;
  let storage: TestStorage;
  let service: HttpsService;
  let gateway: RunningGateway;
  let a2a: Client;
  let serviceFails = false;

  const answerService = (request: SeenRequest, res: ServerResponse): void => {
    res.writeHead(serviceFails ? 500 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ echoed: request.body }));
  };

  beforeAll(async () => {
    [world, redis, storage, service] = await Promise.all([startPaidWorld(), startPrivateRedis(), postgresStorage(), startHttpsService(answerService)]);
    world.localnet.createTokenAccount(custody.publicKey);
    resolver.answer('service.test', ['127.0.0.1']);
    gateway = await startPaidGateway(
      world,
      {
        ...storage.env,
        ...channelEnv(custody, redis.url),
        GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        GW_A2A_SERVE_SECS: '2',
        GW_SSRF_ALLOW_CIDRS: '127.0.0.1/32',
        GW_EXTRA_CA_FILE: service.caFile,
      },
      { hostResolver: resolver },
    );
    const registered = await post(
      '/v1/services/register',
      { id: 'lookup', name: 'lookup', category: 'data', endpoint: `https://service.test:${service.port}/lookup`, x402_enabled: false, price_per_request_usdc: '0.002' },
      ADMIN,
    );
    expect(registered.status).toBe(201);
    a2a = await new ClientFactory().createFromUrl(gateway.url);
  }, 120_000);
  afterEach(() => {
    world.upstreams.resetAll();
    serviceFails = false;
  });
  afterAll(async () => {
    await gateway?.close();
    service?.close();
    await Promise.all([world?.close(), redis?.close(), storage?.drop()]);
  });

  async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  }
  /** An agent's open channel, and a fetch paying from it. */
  const opened = async (deposit = DEPOSIT): Promise<{ agent: Keypair; signer: ChannelSigner; id: string; paying: ChannelFetch }> => {
    const agent = channelAgent(world);
    const signer = new ChannelSigner(agent.secretKey);
    const id = (await openChannel(gateway.url, agent, channelFundingTx(world.localnet, world.mint, custody.publicKey, agent, deposit))).channel_id;
    return { agent, signer, id, paying: wrapFetchWithChannel(fetch, { channelId: id, signer, gateway: gateway.url }) };
  };
  const payWith = (paying: ChannelFetch, path: string, body: unknown): Promise<Response> =>
    paying(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const receiptOf = async (res: Response): Promise<Record<string, unknown>> => (await (await fetch(`${gateway.url}${res.headers.get('x-gw-receipt')}`)).json()) as Record<string, unknown>;
  const drawn = (id: string, cumulative: bigint) => channelWhen(gateway.url, id, (view) => view.last_cumulative === cumulative.toString());
  const recipient = (): bigint => world.localnet.usdcBalance(world.recipient.publicKey);

  const quoteTask = (maxTokens?: number): Promise<Task> => sdkTasks(a2a).quote(maxTokens);
  const submit =
    (task: Task) =>
    (payload: unknown): Promise<Task> =>
      sdkTasks(a2a).pay(task.id, payload);
  /** The JSON-RPC error `call` threw (the SDK throws them). */
  const rpcError = async (call: Promise<unknown>): Promise<{ code: number; message: string; data: Record<string, unknown> }> => {
    const err = (await call.then(
      () => null,
      (thrown: unknown) => thrown,
    )) as { errorResponse?: { error: { code: number; message: string; data: Record<string, unknown> } } } | null;
    if (!err?.errorResponse) throw new Error('expected a JSON-RPC error');
    return err.errorResponse.error;
  };
  const taskState = async (task: Task) => (await a2a.getTask({ id: task.id })).status.state;
  const quoteOf = (task: Task): bigint => readTaskQuote(task)?.amount as bigint;
  /** A voucher for `task` drawing `cumulative`, as plain JSON, signed by hand. */
  const handVoucher = (task: Task, id: string, signer: ChannelSigner, cumulative: bigint): Record<string, unknown> => {
    const fields = {
      channelId: channelIdBytes(id),
      cumulative,
      expirySlot: BigInt(world.localnet.slot) + 1_500n,
      nonce: 7n,
      requestDigest: createHash('sha256').update(a2aDigestInput(task.id)).digest(),
    };
    return channelPaymentPayload(readTaskQuote(task) as NonNullable<ReturnType<typeof readTaskQuote>>, { ...fields, signature: signer.signVoucher(fields) });
  };

  describe('the paid tools and the proxy', () => {
    it('draw search, price and the proxy off chain, each recorded once answered; an upstream failure keeps the static 502 and draws nothing', async () => {
      const { id, paying } = await opened();
      const before = recipient();
      const search = await payWith(paying, SEARCH_PATH, { query: 'channels' });
      expect(search.status).toBe(200);
      expect(search.headers.get('payment-response')).toBeNull();
      // Recorded before the answer went out: the channel already says so.
      expect((await readChannel(gateway.url, id)).last_cumulative).toBe(SEARCH_PRICE.toString());
      expect(await receiptOf(search)).toMatchObject({ status: 'settled', scheme: 'channel', amount_charged_atomic: SEARCH_PRICE.toString(), endpoint: SEARCH_PATH });

      const price = await payWith(paying, PRICE_PATH, { mints: [Keypair.generate().publicKey.toBase58()] });
      expect(price.status).toBe(200);
      const proxied = await payWith(paying, PROXY_PATH, { id: 12345678901234567890n.toString() });
      expect(proxied.status).toBe(200);
      expect(await proxied.json()).toEqual({ echoed: '{"id":"12345678901234567890"}' });
      let total = SEARCH_PRICE + TOKEN_PRICE_PRICE + PROXY_PRICE;
      await drawn(id, total);

      // The upstreams fail: the spec's static 502 bodies, a receipt that says nothing was charged, the channel unmoved.
      world.upstreams.tavily.script({ kind: 'status', status: 500 });
      const failed = await payWith(paying, SEARCH_PATH, { query: 'fails' });
      expect(failed.status).toBe(502);
      expect(await failed.json()).toEqual({ error: 'search provider error' });
      expect(await receiptOf(failed)).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });
      world.upstreams.jupiter.script({ kind: 'status', status: 500 });
      expect((await payWith(paying, PRICE_PATH, { mints: [Keypair.generate().publicKey.toBase58()] })).status).toBe(502);
      serviceFails = true;
      const proxyFailed = await payWith(paying, PROXY_PATH, { id: 1 });
      expect(proxyFailed.status).toBe(502);
      expect(((await proxyFailed.json()) as { error: { code: string } }).error.code).toBe('services.upstream_failed');
      expect((await readChannel(gateway.url, id)).last_cumulative).toBe(total.toString());

      // The next draw follows on from the last recorded one.
      serviceFails = false;
      expect((await payWith(paying, SEARCH_PATH, { query: 'after the failure' })).status).toBe(200);
      total += SEARCH_PRICE;
      await drawn(id, total);
      expect(paying.lastCumulative()).toBe(total);
      // Nothing moved on chain for any of it.
      expect(recipient()).toBe(before);
    });

    it('refuses a budgeted agent on the tools with 403, as for exact; nothing drawn', async () => {
      const { agent, id, paying } = await opened();
      const budget = await fetch(`${gateway.url}/v1/wallets/${agent.publicKey.toBase58()}/budget`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...ADMIN },
        body: JSON.stringify({ daily: 5 }),
      });
      expect(budget.status).toBe(200);
      const refused = await payWith(paying, SEARCH_PATH, { query: 'budgeted' });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('budget.payer_budgeted');
      expect((await readChannel(gateway.url, id)).last_cumulative).toBe('0');
      // A2A refuses it too, as -32007 (spec 4.8).
      const task = await quoteTask();
      const error = await rpcError(paying.payTask(task, submit(task)));
      expect(error).toMatchObject({ code: -32007, data: { reason: 'budget.payer_budgeted' } });
      expect(await taskState(task)).toBe('input-required');
    });
  });

  describe('A2A (@a2a-js/sdk)', () => {
    it('lists channel among the x402 schemes of the agent card', async () => {
      const card = await a2a.getAgentCard();
      const x402 = card.capabilities.extensions?.find((extension) => extension.uri.includes('x402'));
      expect(x402?.params?.schemes).toEqual(['exact', 'channel']);
    });

    it('completes a task paid by a voucher bound to the task id: receipts without a transaction, the quote drawn', async () => {
      const { id, paying } = await opened();
      const task = await quoteTask();
      const done = await paying.payTask(task, submit(task));
      expect(done.status.state).toBe('completed');
      expect(done.artifacts?.[0].parts[0]).toEqual({ kind: 'text', text: 'fake openai reply to: Say hello' });
      expect(done.status.message?.metadata?.['x402.payment.status']).toBe('payment-completed');
      const receipts = done.status.message?.metadata?.['x402.payment.receipts'] as Array<{ tx_signature: string; receipt: string }>;
      expect(receipts).toEqual([{ tx_signature: '', receipt: expect.stringMatching(/^\/v1\/receipts\/[0-9a-f-]{36}$/) }]);
      await drawn(id, quoteOf(task));
      const receipt = (await (await fetch(`${gateway.url}${receipts[0].receipt}`)).json()) as Record<string, unknown>;
      expect(receipt).toMatchObject({ status: 'settled', scheme: 'channel', endpoint: '/a2a', amount_charged_atomic: quoteOf(task).toString() });
    });

    it('a provider failure and a serve timeout draw nothing: -32008, the task back at input-required, the same voucher then completes it', async () => {
      const { id, signer } = await opened();
      for (const fault of [{ kind: 'status', status: 400, message: 'refused upstream' }, { kind: 'hang' }] as const) {
        const task = await quoteTask();
        const voucher = handVoucher(task, id, signer, BigInt((await readChannel(gateway.url, id)).last_cumulative) + quoteOf(task));
        world.upstreams.openai.script(fault);
        const error = await rpcError(submit(task)(voucher));
        expect(error.code).toBe(-32008);
        expect(error.message).toMatch(/no draw was taken from the channel: resubmit the same voucher/);
        expect(await taskState(task)).toBe('input-required');
        const done = await submit(task)(voucher);
        expect(done.status.state).toBe('completed');
        expect(done.status.message?.metadata?.['x402.payment.status']).toBe('payment-completed');
      }
    });

    it('a stale voucher is -32007 with data.last_cumulative; the client resynchronises from it', async () => {
      const { id, signer, paying } = await opened();
      const first = await quoteTask();
      await paying.payTask(first, submit(first));
      const last = quoteOf(first);
      await drawn(id, last);
      const task = await quoteTask();
      const error = await rpcError(submit(task)(handVoucher(task, id, signer, last)));
      expect(error).toMatchObject({ code: -32007, data: { reason: 'payment.channel_stale', last_cumulative: last.toString() } });
      expect(readRpcRefusal({ errorResponse: { error } })).toEqual({ reason: 'payment.channel_stale', lastCumulative: last });
      // A client that believes nothing was drawn signs a stale voucher, learns last_cumulative and pays at once.
      const behind = wrapFetchWithChannel(fetch, { channelId: id, signer, gateway: gateway.url, lastCumulative: 0n });
      expect((await behind.payTask(task, submit(task))).status.state).toBe('completed');
      expect(behind.lastCumulative()).toBe(last + quoteOf(task));
    });

    it('an over-draw leaves the task at input-required, and the same task is then paid with exact', async () => {
      const { id, paying } = await opened(1_000n);
      // 1,000 deposited: an answer of up to 4,000 tokens is quoted above it.
      const task = await quoteTask(4_000);
      expect(quoteOf(task)).toBeGreaterThan(1_000n);
      const error = await rpcError(paying.payTask(task, submit(task)));
      expect(error).toMatchObject({ code: -32007, data: { reason: 'payment.channel_overdraw', last_cumulative: '0' } });
      expect(error.message).toMatch(/pay this request with exact/);
      expect(await taskState(task)).toBe('input-required');
      const required = task.status.message?.metadata?.['x402.payment.required'] as PaymentRequiredBody;
      const before = recipient();
      const done = await submit(task)(a2aPaymentPayload(world, required));
      expect(done.status.state).toBe('completed');
      expect(recipient() - before).toBe(quoteOf(task));
      expect((await readChannel(gateway.url, id)).last_cumulative).toBe('0');
    });

    it('a delivered task whose draw lost its race with a close completes without payment status; nothing drawn', async () => {
      const { id, signer, paying } = await opened();
      const task = await quoteTask();
      world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 800 });
      const paid = paying.payTask(task, submit(task));
      await world.upstreams.openai.arrived(0);
      // The draw's lock is lost (its TTL ran out, say), so the close takes the channel while the answer is on its way.
      const locks = new Redis(redis.url);
      expect(await locks.del(`gw:channel:lock:${id}`)).toBe(1);
      locks.disconnect();
      expect((await closeChannel(fetch, gateway.url, id, signer)).status).toBe('closing');
      const done = await paid;
      expect(done.status.state).toBe('completed');
      expect(done.artifacts?.[0].parts[0]).toEqual({ kind: 'text', text: 'fake openai reply to: Say hello' });
      expect(done.status.message?.metadata).toBeUndefined();
      expect((await a2a.getTask({ id: task.id })).status.message?.metadata).toBeUndefined();
      expect(paying.lastCumulative()).toBe(0n);
      const closed = await channelWhen(gateway.url, id, (view) => view.status === 'closed');
      expect(closed.last_cumulative).toBe('0');
      const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: ADMIN })).text();
      expect(metrics).toMatch(/gw_channel_draws_total\{surface="\/a2a",outcome="race"\} 1/);
    });
  });

  it('one channel across all six surfaces, then the close: the agent gets deposited - drawn back and the recipient gains drawn, exactly', async () => {
    const { agent, signer, id, paying } = await opened();
    const agentBefore = world.localnet.usdcBalance(agent.publicKey);
    const recipientBefore = recipient();
    const custodyBefore = world.localnet.usdcBalance(custody.publicKey);
    const answers = [
      await payWith(paying, '/v1/chat/completions', chatBody({ messages: [{ role: 'user', content: 'six surfaces' }] })),
      await payWith(paying, '/v1/messages', { model: PAID_MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'six surfaces' }] }),
      await payWith(paying, SEARCH_PATH, { query: 'six surfaces' }),
      await payWith(paying, PRICE_PATH, { mints: [Keypair.generate().publicKey.toBase58()] }),
      await payWith(paying, PROXY_PATH, { surface: 5 }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      await res.text();
    }
    const task = await quoteTask();
    expect((await paying.payTask(task, submit(task))).status.state).toBe('completed');
    const total = paying.lastCumulative() as bigint;
    expect(total).toBeGreaterThan(SEARCH_PRICE + TOKEN_PRICE_PRICE + PROXY_PRICE + quoteOf(task));
    await drawn(id, total);

    const closing = await closeChannel(fetch, gateway.url, id, signer);
    expect(closing).toMatchObject({ status: 'closing', refund: (DEPOSIT - total).toString(), payout: total.toString() });
    await channelWhen(gateway.url, id, (view) => view.status === 'closed');
    expect(world.localnet.usdcBalance(agent.publicKey)).toBe(agentBefore + DEPOSIT - total);
    expect(recipient()).toBe(recipientBefore + total);
    // Custody still holds the other tests' channels: this one's deposit, and only it, left.
    expect(world.localnet.usdcBalance(custody.publicKey)).toBe(custodyBefore - DEPOSIT);
  });
});
