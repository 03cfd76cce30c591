import { createHash } from 'node:crypto';
import { ClientFactory, type Client as A2AClient } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import { Keypair } from '@solana/web3.js';
import { Client } from 'pg';
import {
  a2aDigestInput,
  ChannelSigner,
  channelIdBytes,
  channelPaymentPayload,
  channelPaymentSignature,
  readQuote,
  readTaskQuote,
  wrapFetchWithChannel,
  type ChannelFetch,
  type ChannelQuote,
} from '../../../libs/channel-client';
import type { RunningGateway } from '../../../src/gateway';
import { sdkTasks } from '../../support/a2a-client';
import { channelAgent, channelEnv, channelFundingTx, openChannel, readChannel } from '../../support/channel-payments';
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
  let a2a: A2AClient;

  beforeAll(async () => {
    [world, redis, storage] = await Promise.all([startPaidWorld(), startPrivateRedis(), postgresStorage()]);
    world.localnet.createTokenAccount(custody.publicKey);
    gateway = await startPaidGateway(world, { ...storage.env, ...channelEnv(custody, redis.url), GW_REQUEST_TIMEOUT_SECS: String(REQUEST_TIMEOUT_SECS) });
    a2a = await new ClientFactory().createFromUrl(gateway.url);
  }, 120_000);
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway?.close();
    await Promise.all([world?.close(), redis?.close(), storage?.drop()]);
  });

  const opened = async (): Promise<{ id: string; signer: ChannelSigner; paying: ChannelFetch }> => {
    const agent = channelAgent(world);
    const id = (await openChannel(gateway.url, agent, channelFundingTx(world.localnet, world.mint, custody.publicKey, agent, DEPOSIT))).channel_id;
    const signer = new ChannelSigner(agent.secretKey);
    return { id, signer, paying: wrapFetchWithChannel(fetch, { channelId: id, signer, gateway: gateway.url }) };
  };
  const lastCumulative = async (id: string): Promise<bigint> => BigInt((await readChannel(gateway.url, id)).last_cumulative);
  /** A voucher drawing `cumulative` from channel `id`, bound to `digestInput`. */
  const voucher = (id: string, signer: ChannelSigner, cumulative: bigint, digestInput: Uint8Array) => {
    const fields = { channelId: channelIdBytes(id), cumulative, expirySlot: BigInt(world.localnet.slot) + 1_500n, nonce: 1n, requestDigest: createHash('sha256').update(digestInput).digest() };
    return { ...fields, signature: signer.signVoucher(fields) };
  };
  const quoteTask = (): Promise<Task> => sdkTasks(a2a).quote();
  const submit = (task: Task, payload: unknown): Promise<Task> => sdkTasks(a2a).pay(task.id, payload);
  const rpcError = async (call: Promise<unknown>): Promise<{ code: number; data?: Record<string, unknown> }> => {
    const err = (await call.then(
      () => null,
      (thrown: unknown) => thrown,
    )) as { errorResponse?: { error: { code: number; data?: Record<string, unknown> } } } | null;
    if (!err?.errorResponse) throw new Error('expected a JSON-RPC error');
    return err.errorResponse.error;
  };
  const taskQuote = (task: Task): ChannelQuote => readTaskQuote(task) as ChannelQuote;

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
      const drawn = BigInt((await readChannel(gateway.url, id)).last_cumulative);
      // Charged exactly when answered: a 408 with a draw recorded is an answer paid for and never given.
      expect({ status, drawn }).toEqual({ status: 200, drawn: SEARCH_PRICE });
    } finally {
      await holder.end();
    }
  });

  it('a client that leaves while its tool is being answered draws nothing, and its channel is free at once', async () => {
    const { id, paying } = await opened();
    world.upstreams.tavily.script({ kind: 'slow', delayMs: 800 });
    const leaving = new AbortController();
    const call = paying(`${gateway.url}${SEARCH_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'leaves' }), signal: leaving.signal });
    setTimeout(() => leaving.abort(), 400);
    await expect(call).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await lastCumulative(id)).toBe(0n);
    // The lock went with the release: the next draw is not busy.
    const next = await paying(`${gateway.url}${SEARCH_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'stays' }) });
    expect(next.status).toBe(200);
    expect(await lastCumulative(id)).toBe(SEARCH_PRICE);
  });

  it('an A2A voucher pays only its own task: on another task it is a digest mismatch (nothing drawn, that task back at input-required), then still pays its own once', async () => {
    const { id, signer } = await opened();
    const [mine, other] = [await quoteTask(), await quoteTask()];
    const paysMine = channelPaymentPayload(taskQuote(mine), voucher(id, signer, taskQuote(mine).amount, a2aDigestInput(mine.id)));
    expect(await rpcError(submit(other, paysMine))).toMatchObject({ code: -32007, data: { reason: 'payment.channel_digest_mismatch', last_cumulative: '0' } });
    expect((await a2a.getTask({ id: other.id })).status.state).toBe('input-required');
    expect(await lastCumulative(id)).toBe(0n);
    expect((await submit(mine, paysMine)).status.state).toBe('completed');
    expect(await lastCumulative(id)).toBe(taskQuote(mine).amount);
    // Resubmitted on its completed task, it is refused and draws nothing more.
    expect((await rpcError(submit(mine, paysMine))).code).toBe(-32007);
    expect(await lastCumulative(id)).toBe(taskQuote(mine).amount);
  });

  it('an A2A voucher cannot pay a REST tool, nor a REST voucher an A2A task', async () => {
    const { id, signer } = await opened();
    const task = await quoteTask();
    const body = JSON.stringify({ query: 'cross surface' });
    const unpaid = await fetch(`${gateway.url}${SEARCH_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const searchQuote = (await readQuote(unpaid)) as ChannelQuote;
    // The task's voucher, at the search's price, sent to search.
    const a2aBound = voucher(id, signer, searchQuote.amount, a2aDigestInput(task.id));
    const refused = await fetch(`${gateway.url}${SEARCH_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'payment-signature': channelPaymentSignature(searchQuote, a2aBound) },
      body,
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('payment.channel_digest_mismatch');
    // The search body's voucher, at the task's price, sent to the task.
    const restBound = voucher(id, signer, taskQuote(task).amount, new TextEncoder().encode(body));
    expect(await rpcError(submit(task, channelPaymentPayload(taskQuote(task), restBound)))).toMatchObject({ code: -32007, data: { reason: 'payment.channel_digest_mismatch' } });
    expect(await lastCumulative(id)).toBe(0n);
    expect((await a2a.getTask({ id: task.id })).status.state).toBe('input-required');
  });

  it('a tool slower than the request timeout is a 408 that draws nothing, and the channel is free after it', async () => {
    const { id, paying } = await opened();
    world.upstreams.tavily.script({ kind: 'slow', delayMs: (REQUEST_TIMEOUT_SECS + 1) * 1000 });
    const timedOut = await paying(`${gateway.url}${SEARCH_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'too slow' }) });
    expect(timedOut.status).toBe(408);
    await timedOut.text();
    world.upstreams.tavily.script({ kind: 'normal' });
    const next = await paying(`${gateway.url}${SEARCH_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'in time' }) });
    expect(next.status).toBe(200);
    expect(await lastCumulative(id)).toBe(SEARCH_PRICE);
  });
});
