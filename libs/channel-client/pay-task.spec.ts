import { Keypair } from '@solana/web3.js';
import { wrapFetchWithChannel } from './channel-fetch';
import { readTaskQuote } from './quote';
import { readRpcRefusal } from './rpc-refusal';
import { ChannelSigner } from './signer';
import { FakeChannelGateway } from './testing/fake-gateway';

const signer = new ChannelSigner(Keypair.generate());
let gateway: FakeChannelGateway;

beforeEach(async () => {
  gateway = await FakeChannelGateway.start(signer.publicKey);
});
afterEach(() => gateway.stop());

interface RpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

async function a2a(params: unknown): Promise<RpcAnswer> {
  const res = await fetch(`${gateway.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params }) });
  return (await res.json()) as RpcAnswer;
}

const quoteTask = async (): Promise<Record<string, unknown>> => (await a2a({ message: { metadata: {} } })).result as Record<string, unknown>;

/** Sends the payment on the task and throws the JSON-RPC error as `@a2a-js/sdk` does (an Error holding the response). */
const submit = (task: Record<string, unknown>) => async (payload: Record<string, unknown>) => {
  const answer = await a2a({ message: { taskId: task.id, metadata: { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload } } });
  if (answer.error) throw Object.assign(new Error(answer.error.message), { errorResponse: answer });
  return answer.result as Record<string, unknown>;
};

describe('payTask: a channel pays an A2A task', () => {
  it('signs the quote over the task digest, and counts it drawn once the task completed with payment status', async () => {
    const channelFetch = wrapFetchWithChannel(fetch, { channelId: gateway.channelId, signer, gateway: gateway.url, lastCumulative: 0n });
    for (let paid = 1n; paid <= 2n; paid++) {
      const task = await quoteTask();
      const done = await channelFetch.payTask(task, submit(task));
      expect((done.status as { state: string }).state).toBe('completed');
      expect(channelFetch.lastCumulative()).toBe(paid * gateway.quote);
    }
    expect(gateway.lastCumulative).toBe(2n * gateway.quote);
  });

  it('takes last_cumulative from a stale refusal and signs again once', async () => {
    gateway.lastCumulative = 7_000n;
    const channelFetch = wrapFetchWithChannel(fetch, { channelId: gateway.channelId, signer, gateway: gateway.url, lastCumulative: 0n });
    const task = await quoteTask();
    await channelFetch.payTask(task, submit(task));
    expect(channelFetch.lastCumulative()).toBe(7_000n + gateway.quote);
    expect(gateway.served.map(({ status, cumulative }) => [status, cumulative])).toEqual([
      [402, gateway.quote],
      [200, 7_000n + gateway.quote],
    ]);
  });

  it('waits out a busy channel (-32603) and pays', async () => {
    gateway.busyTimes = 1;
    const channelFetch = wrapFetchWithChannel(fetch, { channelId: gateway.channelId, signer, gateway: gateway.url, lastCumulative: 0n });
    const task = await quoteTask();
    const started = Date.now();
    await channelFetch.payTask(task, submit(task));
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(channelFetch.lastCumulative()).toBe(gateway.quote);
  });

  it('throws an over-draw as it came, the cumulative taken from it', async () => {
    gateway.deposited = gateway.quote - 1n;
    const channelFetch = wrapFetchWithChannel(fetch, { channelId: gateway.channelId, signer, gateway: gateway.url, lastCumulative: 0n });
    const task = await quoteTask();
    await expect(channelFetch.payTask(task, submit(task))).rejects.toMatchObject({ errorResponse: { error: { code: -32007, data: { reason: 'payment.channel_overdraw' } } } });
    expect(channelFetch.lastCumulative()).toBe(0n);
  });

  it('leaves the cumulative where it was when the task completed without payment status (a draw that lost its race with a close)', async () => {
    const channelFetch = wrapFetchWithChannel(fetch, { channelId: gateway.channelId, signer, gateway: gateway.url, lastCumulative: 0n });
    const task = await quoteTask();
    const done = await channelFetch.payTask(task, async () => ({ kind: 'task', id: task.id, status: { state: 'completed' } }));
    expect((done.status as { state: string }).state).toBe('completed');
    expect(channelFetch.lastCumulative()).toBe(0n);
  });

  it('refuses a task without a quote before signing anything', async () => {
    const channelFetch = wrapFetchWithChannel(fetch, { channelId: gateway.channelId, signer, gateway: gateway.url, lastCumulative: 0n });
    await expect(channelFetch.payTask({ id: 'a2a_1', status: { state: 'completed' } }, () => Promise.resolve(null))).rejects.toThrow(TypeError);
  });
});

describe('readRpcRefusal', () => {
  const error = { code: -32007, message: 'stale', data: { reason: 'payment.channel_stale', last_cumulative: '2625' } };

  it.each([
    ['the error object', error],
    ['a response holding it', { jsonrpc: '2.0', id: 1, error }],
    ["an exception carrying the response (@a2a-js/sdk's errorResponse)", Object.assign(new Error('x'), { errorResponse: { error } })],
  ])('reads %s', (_, thrown) => {
    expect(readRpcRefusal(thrown)).toEqual({ reason: 'payment.channel_stale', lastCumulative: 2625n });
  });

  it('reads no cumulative that is not a decimal string, and nothing from what holds no error data', () => {
    expect(readRpcRefusal({ ...error, data: { reason: 'r', last_cumulative: 12 } })).toEqual({ reason: 'r', lastCumulative: undefined });
    for (const thrown of [null, 'error', new Error('plain'), { code: -32008, message: 'provider' }]) expect(readRpcRefusal(thrown)).toBeNull();
  });
});

describe('readTaskQuote', () => {
  it("reads the exact offer from a task's x402.payment.required", async () => {
    const task = await quoteTask();
    expect(readTaskQuote(task)).toMatchObject({ amount: gateway.quote, resource: { url: '/a2a', method: 'POST' }, offer: { scheme: 'exact' } });
  });

  it('is null for a task without one', () => {
    expect(readTaskQuote({ id: 'a2a_1', status: { state: 'working' } })).toBeNull();
    expect(readTaskQuote(null)).toBeNull();
  });
});
