import { Connection, Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import bs58 from 'bs58';
import { ChannelSigner, closeChannel, wrapFetchWithChannel } from '../../../libs/channel-client';
import { Database } from '../../../src/adapters/postgres/database';
import { PostgresChannelLedger } from '../../../src/adapters/postgres/postgres-channel-ledger';
import { KeypairFeePayers } from '../../../src/adapters/solana/keypair-fee-payers';
import { SolanaChannelChain } from '../../../src/adapters/solana/solana-channel-chain';
import { Secret } from '../../../src/config/secret';
import type { RunningGateway } from '../../../src/gateway';
import { a2aCall, userMessage, type A2AResponse, type A2ATaskBody } from '../../support/a2a-client';
import { chatBody, PAID_MODEL, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked } from '../../support/payment-transactions';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';
import { postgresStorage, type TestStorage } from '../../support/storage-env';

const describeWithServices = serviceAvailable('postgres') && serviceAvailable('redis') ? describe : describe.skip;
const DEPOSIT = 1_000_000n;
/** Long enough that a gateway's worker never works a job during a test. */
const NEVER = '600000';

describeWithServices('channels across instances, restarts and configurations (local chain, PostgreSQL, a private Redis)', () => {
  let world: PaidWorld;
  let redis: PrivateRedis;
  let storage: TestStorage;
  const custody = Keypair.generate();
  const gateways: RunningGateway[] = [];

  beforeAll(async () => {
    [world, redis, storage] = await Promise.all([startPaidWorld(), startPrivateRedis(), postgresStorage()]);
    world.localnet.createTokenAccount(custody.publicKey);
    world.localnet.airdrop(custody.publicKey, LAMPORTS_PER_SOL / 10);
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await Promise.all([world?.close(), redis?.close(), storage?.drop()]);
  });

  const start = async (env: Record<string, string | undefined> = {}): Promise<RunningGateway> => {
    const gateway = await startPaidGateway(world, {
      ...storage.env,
      REDIS_URL: redis.url,
      GW_CHANNEL_CUSTODY_KEY: bs58.encode(custody.secretKey),
      GW_CHANNEL_MIN_DEPOSIT_ATOMIC: '1000',
      GW_CHANNEL_WORK_INTERVAL_MS: '100',
      GW_LEASE_TTL_SECS: '1',
      GW_SETTLEMENT_CONFIRM_SECS: '1',
      ...env,
    });
    gateways.push(gateway);
    return gateway;
  };
  const stop = async (gateway: RunningGateway): Promise<void> => {
    gateways.splice(gateways.indexOf(gateway), 1);
    await gateway.close();
  };
  const newAgent = (): Keypair => {
    const agent = Keypair.generate();
    world.localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL);
    world.localnet.fundUsdc(agent.publicKey, 10_000_000n);
    return agent;
  };
  const post = (gateway: RunningGateway, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const open = async (gateway: RunningGateway, agent: Keypair): Promise<string> => {
    const parties = { mint: world.mint, payTo: custody.publicKey, payer: agent, gatewayFeePayer: world.feePayer, recentBlockhash: world.localnet.latestBlockhash().blockhash };
    const fundingTx = toBase64(paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties, { amount: DEPOSIT })) }));
    const res = await post(gateway, '/v1/channel/open', { agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTx });
    const body = (await res.json()) as { channel_id: string };
    expect(res.status).toBe(201);
    return body.channel_id;
  };
  const read = async (gateway: RunningGateway, id: string) => (await (await fetch(`${gateway.url}/v1/channel/${id}`)).json()) as Record<string, string>;
  const until = async (check: () => Promise<boolean>, what: string): Promise<void> => {
    for (let tries = 0; tries < 150; tries++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${what} did not happen`);
  };
  const errorCode = async (res: Response): Promise<string> => ((await res.json()) as { error: { code: string } }).error.code;

  it('with channels off, every channel route but the config and every voucher is 404 payment.channel_unavailable', async () => {
    // A custody key whose USDC token account does not exist turns channels off as surely as none.
    const off = await start({ GW_CHANNEL_CUSTODY_KEY: bs58.encode(Keypair.generate().secretKey) });
    const config = (await (await fetch(`${off.url}/v1/channel/config`)).json()) as { enabled: boolean };
    expect(config.enabled).toBe(false);
    for (const res of [
      await fetch(`${off.url}/v1/channel/${bs58.encode(Buffer.alloc(32, 1))}`),
      await post(off, '/v1/channel/close', { channel_id: 'x', signature: Buffer.alloc(64).toString('base64') }),
    ]) {
      expect(res.status).toBe(404);
      expect(await errorCode(res)).toBe('payment.channel_unavailable');
    }
    const agent = newAgent();
    const paying = wrapFetchWithChannel(fetch, { channelId: bs58.encode(Buffer.alloc(32, 1)), signer: new ChannelSigner(agent.secretKey), gateway: off.url, lastCumulative: 0n });
    const refused = await paying(`${off.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chatBody()) });
    expect(refused.status).toBe(404);
    expect(await errorCode(refused)).toBe('payment.channel_unavailable');
    const search = await paying(`${off.url}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'off' }) });
    expect(search.status).toBe(404);
    expect(await errorCode(search)).toBe('payment.channel_unavailable');
    // A2A: -32007 with the spec's message, and a card that does not list the scheme.
    const card = (await (await fetch(`${off.url}/.well-known/agent-card.json`)).json()) as { capabilities: { extensions: Array<{ params: { schemes?: string[] } }> } };
    expect(card.capabilities.extensions.map((extension) => extension.params.schemes).filter(Boolean)).toEqual([['exact']]);
    const quoted = await a2aCall(off, 'message/send', userMessage('Say hello', { model: PAID_MODEL }));
    const task = quoted.body.result as A2ATaskBody;
    const error = await paying
      .payTask(task, async (payload) => {
        const answer = await a2aCall(off, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, task.id));
        if (answer.body.error) throw answer.body;
        return answer.body.result;
      })
      .catch((err: A2AResponse) => err.error);
    expect(error).toMatchObject({ code: -32007, message: 'channel scheme is not accepted on this endpoint' });
    await stop(off);
  });

  it('two instances draw one channel in turn, one draw at a time, and a close on either is answered by both', async () => {
    const [a, b] = [await start(), await start()];
    const agent = newAgent();
    const id = await open(a, agent);
    const signer = new ChannelSigner(agent.secretKey);
    const paying = wrapFetchWithChannel(fetch, { channelId: id, signer, gateway: a.url });
    for (let request = 0; request < 6; request++) {
      const gateway = request % 2 === 0 ? a : b;
      const res = await paying(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chatBody({ messages: [{ role: 'user', content: `turn ${request}` }] })),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    const drawn = paying.lastCumulative() as bigint;
    await until(async () => (await read(b, id)).last_cumulative === drawn.toString(), 'the last draw recorded');

    // A draw in flight holds the channel: the close meets 429, and succeeds once the draw is over.
    world.upstreams.openai.script({ kind: 'reply', chunkDelayMs: 300 });
    const slow = paying(`${b.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody({ stream: true, messages: [{ role: 'user', content: 'slow' }] })),
    });
    const streaming = await slow;
    expect(streaming.status).toBe(200);
    const busy = await post(a, '/v1/channel/close', { channel_id: id, signature: Buffer.from(signer.signClose(bs58.decode(id))).toString('base64') });
    expect(busy.status).toBe(429);
    expect(busy.headers.get('x-gw-channel-last-cumulative')).toBe(drawn.toString());
    await streaming.text();
    await until(async () => (await read(a, id)).last_cumulative !== drawn.toString(), 'the streamed draw recorded');
    const total = BigInt((await read(a, id)).last_cumulative);

    const agentBefore = world.localnet.usdcBalance(agent.publicKey);
    expect((await closeChannel(fetch, a.url, id, signer)).status).toMatch(/^clos/);
    await until(async () => (await read(b, id)).status === 'closed', 'the close');
    expect(world.localnet.usdcBalance(agent.publicKey)).toBe(agentBefore + DEPOSIT - total);
    await Promise.all([stop(a), stop(b)]);
  });

  it('finishes a close whose settlement was sent by an instance that died, without paying twice', async () => {
    const quiet = await start({ GW_CHANNEL_WORK_INTERVAL_MS: NEVER });
    const agent = newAgent();
    const id = await open(quiet, agent);
    const signer = new ChannelSigner(agent.secretKey);
    expect((await closeChannel(fetch, quiet.url, id, signer)).status).toBe('closing');
    await stop(quiet);

    // The dead instance leased the job, recorded its settlement, sent it, and died before it saw it land.
    const database = await Database.open({ kind: 'postgres', url: new Secret(storage.env.DATABASE_URL as string) });
    try {
      const ledger = new PostgresChannelLedger(database.dataSource);
      const job = await ledger.leaseClose(new Date(), 'dead-instance', new Date(Date.now() + 500));
      expect(job?.channel.id).toBe(id);
      const chain = new SolanaChannelChain(world.localnet.url, world.mint.toBase58(), custody.secretKey, new KeypairFeePayers([]));
      // Nothing was drawn: the close is the refund alone.
      const settlement = await chain.settlementTransaction([{ channelId: id, kind: 'refund', owner: agent.publicKey.toBase58(), amount: DEPOSIT }], null);
      if (!settlement) throw new Error('the settlement could not be signed');
      expect(await ledger.recordCloseAttempt(id, 'dead-instance', { ...settlement, leg: 'refund' })).toBe(true);
      const agentBefore = world.localnet.usdcBalance(agent.publicKey);
      await new Connection(world.localnet.url).sendRawTransaction(Buffer.from(settlement.signedTransaction, 'base64'));

      const survivor = await start();
      await until(async () => (await read(survivor, id)).status === 'closed', 'the close after the restart');
      expect((await read(survivor, id)).close_signature).toBe(settlement.signature);
      expect(world.localnet.usdcBalance(agent.publicKey)).toBe(agentBefore + DEPOSIT);
      expect(world.localnet.usdcBalance(custody.publicKey)).toBe(0n);
      await stop(survivor);
    } finally {
      await database.close();
    }
  });

  it('closes an idle channel and pays the whole deposit back', async () => {
    const idle = await start({ GW_CHANNEL_IDLE_CLOSE_DAYS: '0.00002' });
    const agent = newAgent();
    const before = world.localnet.usdcBalance(agent.publicKey);
    const id = await open(idle, agent);
    await until(async () => (await read(idle, id)).status === 'closed', 'the idle close');
    expect(world.localnet.usdcBalance(agent.publicKey)).toBe(before);
    await stop(idle);
  });

  it('refuses to start with another custody key while channels opened with this one are open', async () => {
    const first = await start();
    await open(first, newAgent());
    await stop(first);
    const other = Keypair.generate();
    world.localnet.createTokenAccount(other.publicKey);
    await expect(start({ GW_CHANNEL_CUSTODY_KEY: bs58.encode(other.secretKey) })).rejects.toThrow(/GW_CHANNEL_CUSTODY_KEY/);
  });
});
