import { Keypair } from '@solana/web3.js';
import { Client } from 'pg';
import { ChannelSigner, wrapFetchWithChannel, type ChannelFetch } from '../../../libs/channel-client';
import type { RunningGateway } from '../../../src/gateway';
import { channelAgent, channelEnv, fundingTransfer, openChannel, readChannel } from '../../support/channel-world';
import { startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { SEARCH_PATH, SEARCH_PRICE } from '../../support/paid-tools';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';
import { postgresStorage, type TestStorage } from '../../support/storage-env';

const describeWithServices = serviceAvailable('postgres') && serviceAvailable('redis') ? describe : describe.skip;
const DEPOSIT = 2_000_000n;
/** Short, so a draw's record can be held past it. */
const REQUEST_TIMEOUT_SECS = 2;

/**
 * Adversarial review of channel draws on the paid tools (docs/decisions.md, "Channels": the tools
 * and the paid proxy draw after the route answered). Every test here passes when the gateway is
 * right; a failing one is a finding.
 */
describeWithServices('channel draws on the tools under attack (local chain, PostgreSQL, a private Redis)', () => {
  const custody = Keypair.generate();
  let world: PaidWorld;
  let redis: PrivateRedis;
  let storage: TestStorage;
  let gateway: RunningGateway;

  beforeAll(async () => {
    [world, redis, storage] = await Promise.all([startPaidWorld(), startPrivateRedis(), postgresStorage()]);
    world.localnet.createTokenAccount(custody.publicKey);
    gateway = await startPaidGateway(world, { ...storage.env, ...channelEnv(custody, redis.url), GW_REQUEST_TIMEOUT_SECS: String(REQUEST_TIMEOUT_SECS) });
  }, 120_000);
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway?.close();
    await Promise.all([world?.close(), redis?.close(), storage?.drop()]);
  });

  const opened = async (): Promise<{ id: string; paying: ChannelFetch }> => {
    const agent = channelAgent(world);
    const open = await openChannel(gateway, { agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTransfer(world, agent, DEPOSIT, custody.publicKey) });
    expect(open.status).toBe(201);
    const id = open.body.channel_id;
    return { id, paying: wrapFetchWithChannel(fetch, { channelId: id, signer: new ChannelSigner(agent.secretKey), gateway: gateway.url }) };
  };

  it('a draw whose record is slow is not cut by the request timeout: the client gets the answer it was charged for', async () => {
    const { id, paying } = await opened();
    // The search answers within the request timeout, but the draw's record waits on the channel's row past it.
    world.upstreams.tavily.script({ kind: 'slow', delayMs: 1_000 });
    const holder = new Client({ connectionString: storage.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM channels WHERE id = $1 FOR UPDATE', [id]);
      const release = new Promise<void>((resolve) => setTimeout(resolve, (REQUEST_TIMEOUT_SECS + 1.5) * 1000)).then(async () => {
        await holder.query('COMMIT');
      });
      const res = await paying(`${gateway.url}${SEARCH_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'slow record' }) });
      const status = res.status;
      await res.text();
      await release;
      // Wait for the record the row lock held back, whatever the client was told.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const drawn = BigInt((await readChannel(gateway, id)).last_cumulative);
      // Charged exactly when answered: a 408 with a draw recorded is an answer paid for and never given.
      expect({ status, drawn }).toEqual({ status: 200, drawn: SEARCH_PRICE });
    } finally {
      await holder.end();
    }
  });
});
