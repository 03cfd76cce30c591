import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { createHash } from 'node:crypto';
import { ChannelSigner, channelIdBytes, channelPaymentSignature, closeChannel, readQuote, voucherMessage, wrapFetchWithChannel, type ChannelQuote } from '../../../libs/channel-client';
import { askThroughChannel } from '../../../examples/channel-paying';
import type { RunningGateway } from '../../../src/gateway';
import { formatUsdc } from '../../../src/modules/billing/domain/atomic-usdc';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { exampleText, README } from '../../support/paying-example';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked } from '../../support/payment-transactions';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';
import { postgresStorage, type TestStorage } from '../../support/storage-env';

const describeWithServices = serviceAvailable('postgres') && serviceAvailable('redis') ? describe : describe.skip;
const CHAT = '/v1/chat/completions';
const MESSAGES = '/v1/messages';
const DEPOSIT = 2_000_000n;

interface Opened {
  status: number;
  body: Record<string, string>;
}

describeWithServices('channels on the local chain (PostgreSQL, a private Redis)', () => {
  let world: PaidWorld;
  let redis: PrivateRedis;
  let storage: TestStorage;
  let gateway: RunningGateway;
  const custody = Keypair.generate();

  beforeAll(async () => {
    [world, redis, storage] = await Promise.all([startPaidWorld(), startPrivateRedis(), postgresStorage()]);
    world.localnet.createTokenAccount(custody.publicKey);
    gateway = await startPaidGateway(world, {
      ...storage.env,
      REDIS_URL: redis.url,
      GW_CHANNEL_CUSTODY_KEY: bs58.encode(custody.secretKey),
      GW_CHANNEL_MIN_DEPOSIT_ATOMIC: '1000',
      GW_CHANNEL_WORK_INTERVAL_MS: '100',
      GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await Promise.all([world?.close(), redis?.close(), storage?.drop()]);
  });

  /** A funding transfer of `amount` from `agent` to custody, client-paid. */
  const fundingTx = (agent: Keypair, amount: bigint, payTo = custody.publicKey): string => {
    const parties = { mint: world.mint, payTo, payer: agent, gatewayFeePayer: world.feePayer, recentBlockhash: world.localnet.latestBlockhash().blockhash };
    return toBase64(paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties, { amount })) }));
  };
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const open = async (body: Record<string, string>): Promise<Opened> => {
    const res = await post('/v1/channel/open', body);
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  const channel = async (id: string): Promise<Record<string, string>> => (await (await fetch(`${gateway.url}/v1/channel/${id}`)).json()) as Record<string, string>;
  const newAgent = (): Keypair => {
    const agent = Keypair.generate();
    world.localnet.airdrop(agent.publicKey, 1_000_000_000);
    world.localnet.fundUsdc(agent.publicKey, 10_000_000n);
    return agent;
  };
  const closed = async (id: string): Promise<Record<string, string>> => {
    for (let tries = 0; tries < 100; tries++) {
      const view = await channel(id);
      if (view.status === 'closed') return view;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`channel ${id} did not close`);
  };
  /** A voucher header for `body` on `path`, as a client that signs by hand would send it. */
  const voucher = async (path: string, body: string, id: string, signer: ChannelSigner, cumulative: (quote: bigint) => bigint, overrides: { digest?: Buffer; expirySlot?: bigint } = {}) => {
    const quote = (await readQuote(await post(path, body))) as ChannelQuote;
    const fields = {
      channelId: channelIdBytes(id),
      cumulative: cumulative(quote.amount),
      expirySlot: overrides.expirySlot ?? BigInt(world.localnet.slot) + 1_500n,
      nonce: 0n,
      requestDigest: overrides.digest ?? createHash('sha256').update(body).digest(),
    };
    return { quote: quote.amount, header: channelPaymentSignature(quote, { ...fields, signature: signer.signVoucher(fields) }) };
  };

  it('opens on a landed funding, draws 30 answers across chat and Messages, and pays exactly the rest back at the close', async () => {
    const agent = newAgent();
    const signer = new ChannelSigner(agent.secretKey);
    const funding = fundingTx(agent, DEPOSIT);
    const opened = await open({ agent_wallet: agent.publicKey.toBase58(), funding_tx: funding });
    expect(opened.status).toBe(201);
    expect(opened.body).toEqual(
      expect.objectContaining({ status: 'open', deposited: DEPOSIT.toString(), last_cumulative: '0', custody: custody.publicKey.toBase58(), session_key: agent.publicKey.toBase58() }),
    );
    const id = opened.body.channel_id;
    // The same open again (its answer lost): the same channel; another body with the same funding: 409.
    expect(await open({ agent_wallet: agent.publicKey.toBase58(), funding_tx: funding })).toEqual({ status: 200, body: opened.body });
    expect((await open({ agent_wallet: agent.publicKey.toBase58(), session_key: Keypair.generate().publicKey.toBase58(), funding_tx: funding })).status).toBe(409);

    const recipientBefore = world.localnet.usdcBalance(world.recipient.publicKey);
    const paying = wrapFetchWithChannel(fetch, { channelId: id, signer, gateway: gateway.url });
    for (let request = 0; request < 30; request++) {
      const onChat = request % 2 === 0;
      const body = onChat
        ? chatBody({ messages: [{ role: 'user', content: `draw ${request}` }], stream: request % 4 === 0 })
        : { model: 'openai/gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: `draw ${request}` }], stream: request % 4 === 1 };
      const res = await paying(`${gateway.url}${onChat ? CHAT : MESSAGES}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      expect(res.headers.get('payment-response')).toBeNull();
      expect(res.headers.get('x-gw-receipt')).toMatch(/^\/v1\/receipts\//);
      await res.text();
    }
    const drawn = paying.lastCumulative() as bigint;
    expect(drawn).toBeGreaterThan(0n);
    // Recorded once the answer ended: the stream's record may trail its last byte by a moment.
    for (let tries = 0; tries < 50 && (await channel(id)).last_cumulative !== drawn.toString(); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await channel(id)).last_cumulative).toBe(drawn.toString());

    const agentBefore = world.localnet.usdcBalance(agent.publicKey);
    const closing = await closeChannel(fetch, gateway.url, id, signer);
    expect(closing).toEqual(expect.objectContaining({ status: 'closing', refund: (DEPOSIT - drawn).toString(), payout: drawn.toString() }));
    const final = await closed(id);
    expect(final.close_signature).toEqual(expect.any(String));
    expect(world.localnet.usdcBalance(agent.publicKey)).toBe(agentBefore + DEPOSIT - drawn);
    expect(world.localnet.usdcBalance(world.recipient.publicKey)).toBe(recipientBefore + drawn);
    expect(world.localnet.usdcBalance(custody.publicKey)).toBe(0n);
    // Closed: a voucher is refused, and the close again answers the same record.
    const after = await voucher(CHAT, JSON.stringify(chatBody()), id, signer, (quote) => drawn + quote);
    expect((await post(CHAT, chatBody(), { 'PAYMENT-SIGNATURE': after.header })).status).toBe(404);
    expect((await closeChannel(fetch, gateway.url, id, signer)).status).toBe('closed');
  });

  it('refuses each bad voucher with its code and last_cumulative, and a provider failure draws nothing', async () => {
    const agent = newAgent();
    const signer = new ChannelSigner(agent.secretKey);
    const opened = await open({ agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTx(agent, 1_000n) });
    const id = opened.body.channel_id;
    const body = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'refusals' }] }));
    const refusal = async (header: string, sent = body) => {
      const res = await post(CHAT, sent, { 'PAYMENT-SIGNATURE': header });
      const envelope = (await res.json()) as { error: { code: string; last_cumulative?: string } };
      return { status: res.status, code: envelope.error.code, header: res.headers.get('x-gw-channel-last-cumulative'), last: envelope.error.last_cumulative };
    };

    const first = await voucher(CHAT, body, id, signer, (quote) => quote);
    expect(await refusal((await voucher(CHAT, body, id, signer, (quote) => quote + 1n)).header)).toEqual({ status: 402, code: 'payment.channel_wrong_delta', header: '0', last: '0' });
    expect(await refusal((await voucher(CHAT, body, id, signer, (quote) => quote, { digest: Buffer.alloc(32, 7) })).header)).toEqual({
      status: 402,
      code: 'payment.channel_digest_mismatch',
      header: '0',
      last: '0',
    });
    expect(await refusal((await voucher(CHAT, body, id, signer, (quote) => quote, { expirySlot: BigInt(world.localnet.slot) + 10n })).header)).toEqual({
      status: 402,
      code: 'payment.channel_expired',
      header: '0',
      last: '0',
    });
    expect((await refusal((await voucher(CHAT, body, id, new ChannelSigner(Keypair.generate().secretKey), (quote) => quote)).header)).code).toBe('payment.channel_bad_signature');

    // The provider fails before any content: nothing is drawn, and the same voucher is then served.
    world.upstreams.openai.script({ kind: 'status', status: 400, message: 'refused upstream' });
    const failed = await post(CHAT, body, { 'PAYMENT-SIGNATURE': first.header });
    expect(failed.status).toBe(503);
    expect(((await failed.json()) as { error: { message: string } }).error.message).toMatch(/nothing was drawn from the channel: send the same voucher again$/);
    expect((await channel(id)).last_cumulative).toBe('0');
    const served = await post(CHAT, body, { 'PAYMENT-SIGNATURE': first.header });
    expect(served.status).toBe(200);
    await served.text();
    const last = first.quote.toString();
    for (let tries = 0; tries < 50 && (await channel(id)).last_cumulative !== last; tries++) await new Promise((resolve) => setTimeout(resolve, 50));

    expect(await refusal(first.header)).toEqual({ status: 402, code: 'payment.channel_stale', header: last, last });
    // 1,000 deposited: an answer of up to 4,000 tokens is quoted above what is left, whatever drew before.
    const large = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'refusals' }], max_tokens: 4_000 }));
    const overdraw = await voucher(CHAT, large, id, signer, (quote) => BigInt(last) + quote);
    expect(overdraw.quote).toBeGreaterThan(1_000n);
    expect(await refusal(overdraw.header, large)).toEqual({ status: 402, code: 'payment.channel_overdraw', header: last, last });
  });

  it('serves one of 20 parallel draws on a channel; the others get 429 channel_busy with last_cumulative, and nothing is drawn twice', async () => {
    const agent = newAgent();
    const signer = new ChannelSigner(agent.secretKey);
    const id = (await open({ agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTx(agent, DEPOSIT) })).body.channel_id;
    world.upstreams.openai.script({ kind: 'reply', chunkDelayMs: 200 });
    const body = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'parallel' }] }));
    const { header, quote } = await voucher(CHAT, body, id, signer, (q) => q);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(CHAT, body, { 'PAYMENT-SIGNATURE': header })));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    for (const res of answers.filter((answer) => answer.status !== 200)) {
      expect([429, 402]).toContain(res.status);
      expect(res.headers.get('x-gw-channel-last-cumulative')).toMatch(/^\d+$/);
    }
    await Promise.all(answers.map((res) => res.text()));
    for (let tries = 0; tries < 50 && (await channel(id)).last_cumulative !== quote.toString(); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await channel(id)).last_cumulative).toBe(quote.toString());
  });

  it("draws through the budget seam: a budgeted agent's draw is reserved and spent, one past its budget is refused with nothing drawn, and the deposit is no spend", async () => {
    const agent = newAgent();
    const signer = new ChannelSigner(agent.secretKey);
    const admin = async (method: string, path: string, body?: unknown) =>
      (await (
        await fetch(`${gateway.url}${path}`, {
          method,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json()) as Record<string, unknown>;
    const body = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'budgeted' }] }));
    // A daily budget of one answer, set before the open: the deposit, far above it, is not spend.
    const quoted = ((await readQuote(await post(CHAT, body))) as ChannelQuote).amount;
    await admin('PUT', `/v1/wallets/${agent.publicKey.toBase58()}/budget`, { daily: Number(formatUsdc(quoted)) });
    const opened = await open({ agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTx(agent, DEPOSIT) });
    expect(opened.status).toBe(201);
    const id = opened.body.channel_id;

    const first = await voucher(CHAT, body, id, signer, (quote) => quote);
    const served = await post(CHAT, body, { 'PAYMENT-SIGNATURE': first.header });
    expect(served.status).toBe(200);
    await served.text();
    for (let tries = 0; tries < 50 && (await channel(id)).last_cumulative !== first.quote.toString(); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await admin('GET', `/v1/wallets/${agent.publicKey.toBase58()}/budget`)).daily_spend).toBe(formatUsdc(first.quote));

    const over = await voucher(CHAT, body, id, signer, (quote) => first.quote + quote);
    const refused = await post(CHAT, body, { 'PAYMENT-SIGNATURE': over.header });
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('budget.exceeded');
    expect((await channel(id)).last_cumulative).toBe(first.quote.toString());
  });

  it('verifies a voucher signed by an independent ed25519 implementation', async () => {
    const { ed25519 } = await import('@noble/curves/ed25519');
    const agent = newAgent();
    const id = (await open({ agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTx(agent, DEPOSIT) })).body.channel_id;
    const body = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'noble' }] }));
    const quote = (await readQuote(await post(CHAT, body))) as ChannelQuote;
    const fields = { channelId: channelIdBytes(id), cumulative: quote.amount, expirySlot: BigInt(world.localnet.slot) + 1_500n, nonce: 1n, requestDigest: createHash('sha256').update(body).digest() };
    const signature = ed25519.sign(voucherMessage(fields), agent.secretKey.subarray(0, 32));
    const res = await post(CHAT, body, { 'PAYMENT-SIGNATURE': channelPaymentSignature(quote, { ...fields, signature }) });
    expect(res.status).toBe(200);
    await res.text();
  });

  it("runs the README's example: the openai SDK paying from a channel", async () => {
    const agent = newAgent();
    const id = (await open({ agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTx(agent, DEPOSIT) })).body.channel_id;
    expect(README).toContain(exampleText('channel-paying.ts'));
    const answer = await askThroughChannel({ GATEWAY_URL: gateway.url, CHANNEL_ID: id, SESSION_SECRET_KEY: bs58.encode(agent.secretKey) });
    expect(answer).toContain('fake openai reply');
    for (let tries = 0; tries < 50 && (await channel(id)).last_cumulative === '0'; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(BigInt((await channel(id)).last_cumulative)).toBeGreaterThan(0n);
  });

  it('refuses a funding to another wallet than custody, naming it, and a session key of small order', async () => {
    const agent = newAgent();
    const res = await post('/v1/channel/open', { agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTx(agent, DEPOSIT, world.recipient.publicKey) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payment.channel_funding_invalid');
    // A session key of small order (here the all-zero point) would verify forged vouchers: refused before any chain work.
    const smallOrder = await post('/v1/channel/open', { agent_wallet: agent.publicKey.toBase58(), session_key: bs58.encode(Buffer.alloc(32)), funding_tx: fundingTx(agent, DEPOSIT) });
    expect(smallOrder.status).toBe(400);
    expect((await smallOrder.json()) as unknown).toEqual({ error: expect.objectContaining({ code: 'request.invalid_body', param: 'session_key' }) });
  });
});
