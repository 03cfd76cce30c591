import { createHash } from 'node:crypto';
import {
  AuthorityType,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { Keypair, LAMPORTS_PER_SOL, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import { FailedTransactionMetadata } from 'litesvm';
import { ChannelSigner, channelIdBytes, channelPaymentSignature, readQuote, type ChannelQuote } from '../../../libs/channel-client';
import { Database } from '../../../src/adapters/postgres/database';
import { PostgresChannelLedger } from '../../../src/adapters/postgres/postgres-channel-ledger';
import { Secret } from '../../../src/config/secret';
import type { RunningGateway } from '../../../src/gateway';
import { chatBody, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked } from '../../support/payment-transactions';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';
import { postgresStorage, type TestStorage } from '../../support/storage-env';

/**
 * Adversarial review of payment channels (docs/decisions.md, "Channels"): every test here
 * passes when the gateway is right; a failing one is a finding.
 */
const describeWithServices = serviceAvailable('postgres') && serviceAvailable('redis') ? describe : describe.skip;
const CHAT = '/v1/chat/completions';
const MESSAGES = '/v1/messages';
const DEPOSIT = 2_000_000n;
/** What a close's network fee may cost the gateway at most (a signature or two, priority fees aside). */
const FEES_ONLY = 100_000n;

describeWithServices('channel attacks (local chain, PostgreSQL, a private Redis)', () => {
  let world: PaidWorld;
  let redis: PrivateRedis;
  let storage: TestStorage;
  let gateway: RunningGateway;
  let database: Database;
  let ledger: PostgresChannelLedger;
  const extra: RunningGateway[] = [];
  const custody = Keypair.generate();
  const env = (): Record<string, string> => ({
    ...storage.env,
    REDIS_URL: redis.url,
    GW_CHANNEL_CUSTODY_KEY: bs58.encode(custody.secretKey),
    GW_CHANNEL_MIN_DEPOSIT_ATOMIC: '1000',
    GW_CHANNEL_WORK_INTERVAL_MS: '100',
  });

  beforeAll(async () => {
    [world, redis, storage] = await Promise.all([startPaidWorld(), startPrivateRedis(), postgresStorage()]);
    world.localnet.createTokenAccount(custody.publicKey);
    gateway = await startPaidGateway(world, env());
    database = await Database.open({ kind: 'postgres', url: new Secret(storage.env.DATABASE_URL as string) });
    ledger = new PostgresChannelLedger(database.dataSource);
  });

  afterAll(async () => {
    await Promise.all([gateway?.close(), database?.close(), ...extra.map((other) => other.close())]);
    await Promise.all([world?.close(), redis?.close(), storage?.drop()]);
  });

  const fundingTx = (agent: Keypair, amount: bigint, options: { signer?: Keypair; layout?: 'sponsored' } = {}): string => {
    const parties = { mint: world.mint, payTo: custody.publicKey, payer: agent, gatewayFeePayer: world.feePayer, recentBlockhash: world.localnet.latestBlockhash().blockhash };
    return toBase64(
      paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties, { amount })), layout: options.layout, signers: options.signer ? [options.signer] : undefined }),
    );
  };
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}, on: RunningGateway = gateway, signal?: AbortSignal): Promise<Response> =>
    fetch(`${on.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body), signal });
  const open = async (body: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> => {
    const res = await post('/v1/channel/open', body);
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  /** The channel as the ledger has it (GET /v1/channel/{id} is limited to 60 a minute per client network, too few to poll). */
  const channel = async (id: string): Promise<Record<string, string>> => {
    const found = await ledger.find(id);
    return found ? { status: found.status, last_cumulative: found.lastCumulative.toString(), deposited: found.deposited.toString() } : {};
  };
  const newAgent = (): Keypair => {
    const agent = Keypair.generate();
    world.localnet.airdrop(agent.publicKey, 1_000_000_000);
    world.localnet.fundUsdc(agent.publicKey, 10_000_000n);
    return agent;
  };
  const openChannel = async (agent: Keypair, extraFields: Record<string, string> = {}, amount = DEPOSIT): Promise<string> => {
    const opened = await open({ agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTx(agent, amount), ...extraFields });
    expect(opened.status).toBe(201);
    return opened.body.channel_id;
  };
  const until = async (check: () => Promise<boolean>, what: string, tries = 100): Promise<void> => {
    for (let attempt = 0; attempt < tries; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${what} did not happen`);
  };
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** A voucher for `body` on `path`, signed by `signer`, drawing `cumulative(quote)`. */
  const voucher = async (path: string, body: string, id: string, signer: ChannelSigner, cumulative: (quote: bigint) => bigint = (quote) => quote) => {
    const quote = (await readQuote(await post(path, body))) as ChannelQuote;
    const fields = {
      channelId: channelIdBytes(id),
      cumulative: cumulative(quote.amount),
      expirySlot: BigInt(world.localnet.slot) + 1_500n,
      nonce: 0n,
      requestDigest: createHash('sha256').update(body).digest(),
    };
    return { quote: quote.amount, fields, header: channelPaymentSignature(quote, { ...fields, signature: signer.signVoucher(fields) }) };
  };
  const closeSignature = (signer: ChannelSigner, id: string): string => Buffer.from(signer.signClose(bs58.decode(id))).toString('base64');
  const sendOnChain = (payer: Keypair, instructions: TransactionInstruction[]): void => {
    const transaction = new VersionedTransaction(new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: world.localnet.latestBlockhash().blockhash, instructions }).compileToV0Message());
    transaction.sign([payer]);
    const result = world.localnet.svm.sendTransaction(transaction);
    if (result instanceof FailedTransactionMetadata) throw new Error(`transaction failed: ${result.toString()}`);
  };
  const gatewaySol = (): bigint => world.localnet.solBalance(world.feePayer.publicKey) + world.localnet.solBalance(custody.publicKey);
  const usdcAta = (owner: Keypair) => getAssociatedTokenAddressSync(world.mint, owner.publicKey, true);

  // ---------------------------------------------------------------------------------------------
  // Custody and the close

  it('a close never pays the rent of an agent token account (SOL drain): the refund waits in custody until the agent has an account of its own', async () => {
    const agent = newAgent();
    const signer = new ChannelSigner(agent.secretKey);
    const id = await openChannel(agent);
    // The attacker empties its token account elsewhere and closes it, the rent back to itself.
    const stash = Keypair.generate();
    world.localnet.createTokenAccount(stash.publicKey);
    sendOnChain(agent, [
      createTransferCheckedInstruction(usdcAta(agent), world.mint, usdcAta(stash), agent.publicKey, world.localnet.usdcBalance(agent.publicKey), 6),
      createCloseAccountInstruction(usdcAta(agent), agent.publicKey, agent.publicKey),
    ]);
    const solBefore = gatewaySol();
    expect((await post('/v1/channel/close', { channel_id: id, signature: closeSignature(signer, id) })).status).toBe(202);
    // The close job retries the refund, but creates nothing: the deposit stays in custody, the channel closing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await channel(id)).status).toBe('closing');
    expect(world.localnet.usdcBalance(custody.publicKey)).toBe(DEPOSIT);
    // The agent opens its account again, at its own cost; the refund then lands there.
    sendOnChain(agent, [createAssociatedTokenAccountIdempotentInstruction(agent.publicKey, usdcAta(agent), agent.publicKey, world.mint)]);
    await until(async () => (await channel(id)).status === 'closed', 'the close', 150);
    expect(world.localnet.usdcBalance(agent.publicKey)).toBe(DEPOSIT);
    // The gateway paid network fees for the close, never ~0.002 SOL of rent an agent can pocket.
    expect(solBefore - gatewaySol()).toBeLessThan(FEES_ONLY);
  });

  it('an agent that hands its token account to another owner cannot block the payout: the recipient is paid what was drawn, the refund waits', async () => {
    const agent = newAgent();
    const signer = new ChannelSigner(agent.secretKey);
    const id = await openChannel(agent);
    const body = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'owner swap' }] }));
    const drawn = await voucher(CHAT, body, id, signer);
    const res = await post(CHAT, body, { 'PAYMENT-SIGNATURE': drawn.header });
    expect(res.status).toBe(200);
    await res.text();
    await until(async () => (await channel(id)).last_cumulative === drawn.quote.toString(), 'the draw recorded');
    // SPL Token lets an owner give its (associated) token account away.
    const newOwner = Keypair.generate();
    world.localnet.airdrop(newOwner.publicKey, LAMPORTS_PER_SOL / 100);
    sendOnChain(agent, [createSetAuthorityInstruction(usdcAta(agent), agent.publicKey, AuthorityType.AccountOwner, newOwner.publicKey)]);
    const [recipientBefore, agentBefore] = [world.localnet.usdcBalance(world.recipient.publicKey), world.localnet.usdcBalance(agent.publicKey)];
    expect((await post('/v1/channel/close', { channel_id: id, signature: closeSignature(signer, id) })).status).toBe(202);
    await until(async () => world.localnet.usdcBalance(world.recipient.publicKey) === recipientBefore + drawn.quote, 'the payout');
    expect((await channel(id)).status).toBe('closing');
    // Nothing is paid into an account that is no longer the agent's; given back, the refund lands.
    expect(world.localnet.usdcBalance(agent.publicKey)).toBe(agentBefore);
    sendOnChain(newOwner, [createSetAuthorityInstruction(usdcAta(agent), newOwner.publicKey, AuthorityType.AccountOwner, agent.publicKey)]);
    await until(async () => (await channel(id)).status === 'closed', 'the close', 150);
    expect(world.localnet.usdcBalance(agent.publicKey)).toBe(agentBefore + DEPOSIT - drawn.quote);
    expect(world.localnet.usdcBalance(world.recipient.publicKey)).toBe(recipientBefore + drawn.quote);
  });

  it('ten racing closes pay exactly once: the refund plus the payout is the deposit, and custody is left with nothing of it', async () => {
    const agent = newAgent();
    const signer = new ChannelSigner(agent.secretKey);
    const custodyBefore = world.localnet.usdcBalance(custody.publicKey);
    const id = await openChannel(agent);
    const agentBefore = world.localnet.usdcBalance(agent.publicKey);
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('/v1/channel/close', { channel_id: id, signature: closeSignature(signer, id) })));
    expect(answers.map((res) => res.status).filter((status) => status !== 202 && status !== 429)).toEqual([]);
    await until(async () => (await channel(id)).status === 'closed', 'the close');
    await settle(500);
    expect(world.localnet.usdcBalance(agent.publicKey)).toBe(agentBefore + DEPOSIT);
    expect(world.localnet.usdcBalance(custody.publicKey)).toBe(custodyBefore);
  });

  it('nobody but the session key closes a channel: not a stranger, not the agent wallet once a session key was given', async () => {
    const agent = newAgent();
    const session = Keypair.generate();
    const id = await openChannel(agent, { session_key: session.publicKey.toBase58() });
    for (const signature of [
      closeSignature(new ChannelSigner(Keypair.generate().secretKey), id),
      closeSignature(new ChannelSigner(agent.secretKey), id),
      Buffer.alloc(64).toString('base64'),
      'not base64!',
    ]) {
      const res = await post('/v1/channel/close', { channel_id: id, signature });
      expect([400, 401]).toContain(res.status);
    }
    expect((await channel(id)).status).toBe('open');
    expect((await post('/v1/channel/close', { channel_id: id, signature: closeSignature(new ChannelSigner(session.secretKey), id) })).status).toBe(202);
  });

  it("refuses an open that claims someone else's funding (agent_wallet not the transfer's authority), and one repeated with an altered body", async () => {
    const victim = newAgent();
    const thief = newAgent();
    const funding = fundingTx(victim, DEPOSIT);
    const stolen = await open({ agent_wallet: thief.publicKey.toBase58(), funding_tx: funding });
    expect(stolen.status).toBe(400);
    expect(stolen.body).toEqual(expect.objectContaining({ error: expect.objectContaining({ code: 'payment.channel_funding_invalid' }) }));
    const opened = await open({ agent_wallet: victim.publicKey.toBase58(), funding_tx: funding });
    expect(opened.status).toBe(201);
    const alteredBodies: Record<string, string>[] = [
      { agent_wallet: thief.publicKey.toBase58(), funding_tx: funding },
      { agent_wallet: victim.publicKey.toBase58(), session_key: thief.publicKey.toBase58(), funding_tx: funding },
    ];
    for (const altered of alteredBodies) {
      const again = await open(altered);
      expect([400, 409]).toContain(again.status);
    }
    // Sponsored layout: the gateway's fee payer pays the network fee, the credit is still the transfer.
    const sponsoredAgent = newAgent();
    const sponsored = await open({ agent_wallet: sponsoredAgent.publicKey.toBase58(), funding_tx: fundingTx(sponsoredAgent, DEPOSIT, { layout: 'sponsored' }) });
    if (sponsored.status === 201) expect(sponsored.body.deposited).toBe(DEPOSIT.toString());
    else expect(sponsored.status).toBeGreaterThanOrEqual(400);
  });

  // ---------------------------------------------------------------------------------------------
  // Free service and double draws

  it('a client that leaves mid-stream, right after the first content, is drawn', async () => {
    const agent = newAgent();
    const id = await openChannel(agent);
    const body = JSON.stringify(chatBody({ stream: true, messages: [{ role: 'user', content: 'abort mid-stream' }] }));
    const { header, quote } = await voucher(CHAT, body, id, new ChannelSigner(agent.secretKey));
    world.upstreams.openai.script({ kind: 'reply', chunkDelayMs: 300 });
    const abort = new AbortController();
    const res = await post(CHAT, body, { 'PAYMENT-SIGNATURE': header }, gateway, abort.signal);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    abort.abort();
    await until(async () => (await channel(id)).last_cumulative === quote.toString(), 'the draw of an abandoned stream');
  });

  it('a client that left before any content either is not drawn or gets its answer when it resends the same voucher', async () => {
    const agent = newAgent();
    const id = await openChannel(agent);
    const body = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'leave before content' }] }));
    const { header, quote } = await voucher(CHAT, body, id, new ChannelSigner(agent.secretKey));
    world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 800 });
    const abort = new AbortController();
    const leaving = post(CHAT, body, { 'PAYMENT-SIGNATURE': header }, gateway, abort.signal).catch(() => null);
    await settle(200);
    abort.abort();
    await leaving;
    await settle(1_500);
    const drawn = (await channel(id)).last_cumulative === quote.toString();
    if (!drawn) return;
    // Drawn for an answer the client never saw: as with `exact`, a resend of the same payment must get it.
    const resend = await post(CHAT, body, { 'PAYMENT-SIGNATURE': header });
    const text = await resend.text();
    expect({ status: resend.status, text: text.slice(0, 200) }).toEqual({ status: 200, text: expect.stringContaining('fake openai reply') });
  });

  it('a voucher used on chat is stale on /v1/messages and on chat again; the same header on another channel does not verify', async () => {
    const agent = newAgent();
    const signer = new ChannelSigner(agent.secretKey);
    // The chain's blockhash never moves here: a second funding of the same amount would be the same transaction.
    const [a, b] = [await openChannel(agent), await openChannel(agent, {}, DEPOSIT + 1n)];
    const body = JSON.stringify({ model: 'openai/gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'cross route' }] });
    const used = await voucher(CHAT, body, a, signer);
    const served = await post(CHAT, body, { 'PAYMENT-SIGNATURE': used.header });
    expect(served.status).toBe(200);
    await served.text();
    await until(async () => (await channel(a)).last_cumulative === used.quote.toString(), 'the draw');
    for (const path of [MESSAGES, CHAT]) {
      const again = await post(path, body, { 'PAYMENT-SIGNATURE': used.header });
      // 402 stale (chat), or 400 on Messages: the header's resource names the chat route.
      expect([400, 402]).toContain(again.status);
      await again.text();
    }
    // The header rewritten to name channel b (same session key): the signature covers the channel id.
    const decoded = JSON.parse(Buffer.from(used.header, 'base64').toString()) as { payload: Record<string, unknown> };
    decoded.payload.channel_id = b;
    const moved = await post(CHAT, body, { 'PAYMENT-SIGNATURE': JSON.stringify(decoded) });
    expect(moved.status).toBe(401);
    expect((await channel(a)).last_cumulative).toBe(used.quote.toString());
    expect((await channel(b)).last_cumulative).toBe('0');
  });

  it('the same voucher sent in parallel to two instances on one database and Redis is served once and drawn once', async () => {
    const second = await startPaidGateway(world, env());
    extra.push(second);
    const agent = newAgent();
    const id = await openChannel(agent);
    const body = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'two instances' }] }));
    const { header, quote } = await voucher(CHAT, body, id, new ChannelSigner(agent.secretKey));
    world.upstreams.openai.script({ kind: 'reply', chunkDelayMs: 100 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => post(CHAT, body, { 'PAYMENT-SIGNATURE': header }, index % 2 === 0 ? gateway : second)));
    const texts = await Promise.all(answers.map((res) => res.text()));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    expect(texts.filter((text) => text.includes('fake openai reply'))).toHaveLength(1);
    await until(async () => (await channel(id)).last_cumulative === quote.toString(), 'the draw');
    // Sequentially afterwards, on either instance: stale.
    for (const on of [gateway, second]) expect((await post(CHAT, body, { 'PAYMENT-SIGNATURE': header }, on)).status).toBe(402);
  });

  // ---------------------------------------------------------------------------------------------
  // Malformed vouchers

  it('refuses huge or malformed voucher fields as malformed (never a 5xx), drawing nothing', async () => {
    const agent = newAgent();
    const id = await openChannel(agent);
    const body = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'malformed' }] }));
    const { header } = await voucher(CHAT, body, id, new ChannelSigner(agent.secretKey));
    const base = JSON.parse(Buffer.from(header, 'base64').toString()) as { payload: Record<string, unknown> };
    const cases: Record<string, unknown>[] = [
      { channel_id: 12345 },
      { channel_id: 'x'.repeat(20_000) },
      { channel_id: bs58.encode(Buffer.alloc(33, 1)) },
      { nonce: 2 ** 60 },
      { nonce: -1 },
      { nonce: '-1' },
      { nonce: '99999999999999999999' },
      { nonce: '9223372036854775808' },
      { nonce: {} },
      { nonce: 1.5 },
      { expiry_slot: 2 ** 60 },
      { expiry_slot: -1 },
      { expiry_slot: null },
      { cumulative: '-1' },
      { cumulative: '1e3' },
      { cumulative: 2 ** 70 },
      { cumulative: '18446744073709551616' },
      { cumulative: '0x10' },
      { request_digest: Buffer.alloc(31).toString('base64') },
      { request_digest: 42 },
      { signature: Buffer.alloc(65).toString('base64') },
      { signature: [] },
    ];
    const statuses: Record<string, number> = {};
    for (const change of cases) {
      const res = await post(CHAT, body, { 'PAYMENT-SIGNATURE': JSON.stringify({ ...base, payload: { ...base.payload, ...change } }) });
      statuses[JSON.stringify(change).slice(0, 60)] = res.status;
      await res.text();
    }
    expect(Object.entries(statuses).filter(([, status]) => status >= 500 || status === 200)).toEqual([]);
    expect((await channel(id)).last_cumulative).toBe('0');
  });

  it("accepts the wire forms the architecture promises: expiry_slot and nonce as decimal strings, and Solvela's cumulative_atomic number", async () => {
    const agent = newAgent();
    const id = await openChannel(agent);
    const signer = new ChannelSigner(agent.secretKey);
    const body = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'wire forms' }] }));
    const first = await voucher(CHAT, body, id, signer);
    const asStrings = JSON.parse(Buffer.from(first.header, 'base64').toString()) as { payload: Record<string, unknown> };
    asStrings.payload.expiry_slot = String(first.fields.expirySlot);
    asStrings.payload.nonce = '0';
    const served = await post(CHAT, body, { 'PAYMENT-SIGNATURE': JSON.stringify(asStrings) });
    const servedText = await served.text();
    expect({ status: served.status, refusal: served.status === 200 ? null : servedText.slice(0, 300) }).toEqual({ status: 200, refusal: null });
    await until(async () => (await channel(id)).last_cumulative === first.quote.toString(), 'the first draw');
    const body2 = JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'wire forms 2' }] }));
    const second = await voucher(CHAT, body2, id, signer, (quote) => first.quote + quote);
    const solvela = JSON.parse(Buffer.from(second.header, 'base64').toString()) as { payload: Record<string, unknown> };
    solvela.payload.cumulative_atomic = Number(solvela.payload.cumulative);
    delete solvela.payload.cumulative;
    const res = await post(CHAT, body2, { 'PAYMENT-SIGNATURE': JSON.stringify(solvela) });
    const resText = await res.text();
    expect({ status: res.status, refusal: res.status === 200 ? null : resText.slice(0, 300) }).toEqual({ status: 200, refusal: null });
  });
});
