import { Keypair } from '@solana/web3.js';
import { version } from '../../../package.json';
import type { PaymentRequiredBody } from '../../../libs/x402';
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader, toHeaderForm } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { AP2_EXTENSION_URI, X402_EXTENSION_URI } from '../../../src/modules/a2a/domain/a2a-wire';
import { a2aCall, userMessage, type A2AResponse, type A2ATaskBody } from '../../support/a2a-client';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { PAID_MODEL, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld, type SpecPayment } from '../../support/paid-gateway';
import { paymentInstructions, transferChecked } from '../../support/payment-transactions';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { startRpcFaultProxy, type RpcFaultProxy } from '../../support/rpc-fault-proxy';
import { serviceAvailable } from '../../support/services';
import { pgliteStorage } from '../../support/storage-env';

type Receipts = Array<{ tx_signature: string; receipt?: string; transaction?: string }>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const required = (task: A2ATaskBody): PaymentRequiredBody => task.status.message?.metadata?.['x402.payment.required'] as PaymentRequiredBody;
const receiptsOf = (task: A2ATaskBody): Receipts => task.status.message?.metadata?.['x402.payment.receipts'] as Receipts;

/** The spec-form payment payload (plain JSON, as `x402.payment.payload` carries it) for a task's stored quote. */
function paymentFor(world: PaidWorld, quote: PaymentRequiredBody, options: SpecPayment = {}): Record<string, unknown> {
  const header = decodePaymentRequiredHeader(encodePaymentRequiredHeader(toHeaderForm(quote)));
  return JSON.parse(Buffer.from(specPaymentHeader(world, header, options), 'base64').toString()) as Record<string, unknown>;
}

const paidMessage = (payload: unknown, taskId: string) => userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, taskId);

async function quoteTask(
  gateway: RunningGateway,
  metadata: Record<string, unknown> = { model: PAID_MODEL, max_tokens: 50 },
  text = 'Say hello',
): Promise<{ task: A2ATaskBody; quote: PaymentRequiredBody; amount: bigint }> {
  const res = await a2aCall(gateway, 'message/send', userMessage(text, metadata));
  expect(res.status).toBe(200);
  expect(res.body.error).toBeUndefined();
  const task = res.body.result as A2ATaskBody;
  const quote = required(task);
  return { task, quote, amount: BigInt(quote.accepts[0].amount) };
}

/** A raw POST /a2a with any body. */
async function rawPost(gateway: RunningGateway, body: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${gateway.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const PAYMENT_RPC_METHODS = ['isBlockhashValid', 'getAccountInfo', 'getMultipleAccounts', 'simulateTransaction', 'sendTransaction', 'getSignatureStatuses', 'getTokenAccountBalance', 'getTransaction'];

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** Sends the transaction of a PAYMENT-SIGNATURE header straight to the local chain. */
async function sendRaw(world: PaidWorld, header: string): Promise<void> {
  const payload = JSON.parse(Buffer.from(header, 'base64').toString()) as { payload: { transaction: string } };
  const res = await fetch(world.localnet.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [payload.payload.transaction, { encoding: 'base64' }] }),
  });
  const body = (await res.json()) as { error?: unknown };
  if (body.error) throw new Error(`the drain was refused: ${JSON.stringify(body.error)}`);
}

const errorOf = (res: { body: A2AResponse }) => res.body.error;

describe('A2A task states and JSON-RPC errors (spec 2.13, 3.1, 4.8, 7, 8)', () => {
  let world: PaidWorld;
  let rpc: RpcFaultProxy;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    rpc = await startRpcFaultProxy(world.localnet.url);
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_SOLANA_RPC_URL: rpc.url });
  });
  afterEach(() => {
    world.upstreams.resetAll();
    rpc.mode({ kind: 'pass' });
  });
  afterAll(async () => {
    await gateway?.close();
    await rpc?.close();
    await world?.close();
  });

  const recipient = () => world.localnet.usdcBalance(world.recipient.publicKey);
  const landed = () => world.localnet.sentTransactions().length;
  /** JSON-RPC calls a payment's verification and settlement make; the gateway's background polls (blockhash, fee payer balance) use others. */
  const paymentCalls = () => PAYMENT_RPC_METHODS.reduce((sum, method) => sum + rpc.calls(method), 0);
  const pay = (taskId: string, payload: unknown) => a2aCall(gateway, 'message/send', paidMessage(payload, taskId));
  const get = (id: unknown, extra: Record<string, unknown> = {}) => a2aCall(gateway, 'tasks/get', { id, ...extra });
  const cancel = (id: unknown) => a2aCall(gateway, 'tasks/cancel', { id });
  const allProviders = (behaviour: Parameters<PaidWorld['upstreams']['openai']['setDefault']>[0]) => {
    for (const fake of [world.upstreams.openai, world.upstreams.anthropic, world.upstreams.google, world.upstreams.nvidia]) fake.setDefault(behaviour);
  };

  describe('quote: message/send without taskId', () => {
    it('answers input-required with the quote for /a2a in x402.payment.required; the model defaults to auto', async () => {
      const { task, quote, amount } = await quoteTask(gateway, {});
      expect(task.id).toMatch(/^a2a_[0-9a-f]{32}$/);
      expect(task.status.state).toBe('input-required');
      expect(task.status.message?.metadata?.['x402.payment.status']).toBe('payment-required');
      expect(task.artifacts).toBeUndefined();
      expect(quote).toMatchObject({ x402_version: 2, resource: { url: '/a2a', method: 'POST' }, error: 'Payment required' });
      expect(quote.accepts[0]).toMatchObject({ scheme: 'exact', asset: world.mint.toBase58(), pay_to: world.recipient.publicKey.toBase58(), max_timeout_seconds: 300 });
      expect(amount).toBeGreaterThan(0n);
      // No model given: the same quote as naming `auto`.
      const named = await quoteTask(gateway, { model: 'auto' });
      expect(named.amount).toBe(amount);
      expect(named.task.id).not.toBe(task.id);
      // tasks/get on input-required returns the stored quote.
      const read = await get(task.id);
      expect(read.body.result?.status.state).toBe('input-required');
      expect(required(read.body.result as A2ATaskBody)).toEqual(quote);
    });

    it('a message without a text part is -32602', async () => {
      for (const parts of [[], [{ kind: 'data', data: { a: 1 } }], [{ kind: 'text', text: '   ' }]]) {
        const res = await a2aCall(gateway, 'message/send', { message: { kind: 'message', messageId: 'm-1', role: 'user', parts } });
        expect(res.status).toBe(200);
        expect(errorOf(res)?.code).toBe(-32602);
      }
      expect(errorOf(await a2aCall(gateway, 'message/send', {}))?.code).toBe(-32602);
    });

    it('an image part is -32602, even beside a text part', async () => {
      const image = { kind: 'file', file: { mimeType: 'image/png', bytes: 'iVBORw0KGgo=' } };
      const res = await a2aCall(gateway, 'message/send', { message: { kind: 'message', messageId: 'm-2', role: 'user', parts: [{ kind: 'text', text: 'What is this?' }, image] } });
      expect(res.status).toBe(200);
      expect(errorOf(res)?.code).toBe(-32602);
    });

    it('an unknown model is -32009', async () => {
      const res = await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: 'nobody/no-such-model' }));
      expect(res.status).toBe(200);
      expect(errorOf(res)?.code).toBe(-32009);
    });
  });

  describe('payment', () => {
    it('pays: completed with the artifact and x402.payment.receipts, the receipt readable; the recipient gains exactly the quote; historyLength is ignored', async () => {
      const { task, quote, amount } = await quoteTask(gateway);
      const [before, sent, calls] = [recipient(), landed(), paymentCalls()];

      const paid = await pay(task.id, paymentFor(world, quote));

      expect(paid.body.error).toBeUndefined();
      // What the refusals below are measured with: a payment does ask the chain through these methods.
      expect(paymentCalls()).toBeGreaterThan(calls);
      const done = paid.body.result as A2ATaskBody;
      expect(done.id).toBe(task.id);
      expect(done.status.state).toBe('completed');
      expect(done.status.message?.metadata?.['x402.payment.status']).toBe('payment-completed');
      expect(done.artifacts?.[0].parts[0]).toEqual({ kind: 'text', text: 'fake openai reply to: Say hello' });
      const receipts = receiptsOf(done);
      // Spec 2.13's fields, and x402's SettleResponse fields beside them.
      expect(receipts).toEqual([
        {
          tx_signature: expect.any(String),
          receipt: expect.stringMatching(/^\/v1\/receipts\/[0-9a-f-]{36}$/),
          success: true,
          transaction: expect.any(String),
          network: expect.stringMatching(/^solana:/),
        },
      ]);
      expect(receipts[0].transaction).toBe(receipts[0].tx_signature);
      expect(recipient() - before).toBe(amount);
      expect(landed() - sent).toBe(1);
      const receipt = await fetch(`${gateway.url}${receipts[0].receipt}`);
      expect(receipt.status).toBe(200);
      expect(await receipt.json()).toMatchObject({
        scheme: 'exact',
        payer_wallet: world.payer.publicKey.toBase58(),
        transaction_signature: receipts[0].tx_signature,
        amount_paid_atomic: amount.toString(),
      });

      // tasks/get on completed: the artifact and the receipts; historyLength accepted and ignored.
      const read = await get(task.id);
      expect(read.body.result?.status.state).toBe('completed');
      expect(read.body.result?.artifacts?.[0].parts[0].text).toBe('fake openai reply to: Say hello');
      expect(receiptsOf(read.body.result as A2ATaskBody)).toEqual(receipts);
      const withHistory = await get(task.id, { historyLength: 5 });
      expect(withHistory.body.error).toBeUndefined();
      expect(withHistory.body.result).toEqual(read.body.result);

      // Terminal: neither another payment nor a cancel.
      const again = await pay(task.id, paymentFor(world, quote));
      expect(errorOf(again)?.code).toBe(-32007);
      expect(errorOf(await cancel(task.id))?.code).toBe(-32002);
      expect(recipient() - before).toBe(amount);
      expect(landed() - sent).toBe(1);
    });

    it('a working task: tasks/get shows the status alone, a second payment is -32007 and a cancel -32002; one transfer lands', async () => {
      const { task, quote, amount } = await quoteTask(gateway);
      world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 1500 });
      const [before, sent] = [recipient(), landed()];

      const first = pay(task.id, paymentFor(world, quote));
      await world.upstreams.openai.arrived(0);

      const working = await get(task.id);
      expect(working.body.error).toBeUndefined();
      expect(working.body.result?.status.state).toBe('working');
      expect(working.body.result?.status.message).toBeUndefined();
      expect(working.body.result?.artifacts).toBeUndefined();
      const second = await pay(task.id, paymentFor(world, quote));
      expect(errorOf(second)?.code).toBe(-32007);
      expect(errorOf(await cancel(task.id))?.code).toBe(-32002);

      const done = await first;
      expect(done.body.result?.status.state).toBe('completed');
      expect(recipient() - before).toBe(amount);
      expect(landed() - sent).toBe(1);
      expect(world.upstreams.openai.requests).toHaveLength(1);
    });

    it('two payments for one task raced: one completes, the other is refused; exactly one transfer lands', async () => {
      const { task, quote, amount } = await quoteTask(gateway);
      world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 300 });
      const [before, sent] = [recipient(), landed()];

      const results = await Promise.all([pay(task.id, paymentFor(world, quote)), pay(task.id, paymentFor(world, quote))]);

      const completed = results.filter((res) => res.body.result?.status.state === 'completed');
      const refused = results.filter((res) => res.body.error !== undefined);
      expect(completed).toHaveLength(1);
      expect(refused).toHaveLength(1);
      const error = errorOf(refused[0]);
      expect([-32007, -32603]).toContain(error?.code);
      if (error?.code === -32603) expect(error.data).toMatchObject({ retryable: true });
      expect(recipient() - before).toBe(amount);
      expect(landed() - sent).toBe(1);
      expect(world.upstreams.openai.requests).toHaveLength(1);
      expect((await get(task.id)).body.result?.status.state).toBe('completed');
    });

    it('settlement failing before funds move (no USDC, wrong recipient) is -32007 and the task is back to input-required; a corrected payment then completes it', async () => {
      const { task, quote, amount } = await quoteTask(gateway);
      const broke = Keypair.generate();
      world.localnet.airdrop(broke.publicKey, 1_000_000_000);
      world.localnet.createTokenAccount(broke.publicKey);
      const stranger = Keypair.generate();
      world.localnet.createTokenAccount(stranger.publicKey);
      const [before, payerBefore] = [recipient(), world.localnet.usdcBalance(world.payer.publicKey)];

      const noFunds = await pay(task.id, paymentFor(world, quote, { payer: broke }));
      expect(errorOf(noFunds)?.code).toBe(-32007);
      expect((await get(task.id)).body.result?.status.state).toBe('input-required');

      const elsewhere = await pay(task.id, paymentFor(world, quote, { instructions: (parties) => paymentInstructions(transferChecked({ ...parties, payTo: stranger.publicKey }, { amount })) }));
      expect(errorOf(elsewhere)?.code).toBe(-32007);
      const waiting = await get(task.id);
      expect(waiting.body.result?.status.state).toBe('input-required');
      expect(required(waiting.body.result as A2ATaskBody)).toEqual(quote);
      expect(recipient()).toBe(before);
      expect(world.localnet.usdcBalance(stranger.publicKey)).toBe(0n);
      expect(world.localnet.usdcBalance(world.payer.publicKey)).toBe(payerBefore);
      expect(world.upstreams.openai.requests).toHaveLength(0);

      const corrected = await pay(task.id, paymentFor(world, quote));
      expect(corrected.body.error).toBeUndefined();
      expect(corrected.body.result?.status.state).toBe('completed');
      expect(recipient() - before).toBe(amount);
    });

    it('a payment the node refuses at broadcast (the payer emptied its account after verification) is -32007, the task back to input-required, nothing charged', async () => {
      const { task, quote, amount } = await quoteTask(gateway);
      const payer = Keypair.generate();
      world.localnet.airdrop(payer.publicKey, 1_000_000_000);
      world.localnet.fundUsdc(payer.publicKey, amount);
      const sink = Keypair.generate();
      world.localnet.createTokenAccount(sink.publicKey);
      const before = recipient();
      const sends = rpc.calls('sendTransaction');
      rpc.mode({ kind: 'silent', methods: ['sendTransaction'] });

      const answer = pay(task.id, paymentFor(world, quote, { payer }));
      await until(() => rpc.calls('sendTransaction') > sends);
      // Verified, held at the broadcast: the payer empties its account meanwhile (straight to the chain, not through the proxy).
      const drain = specPaymentHeader(world, decodePaymentRequiredHeader(encodePaymentRequiredHeader(toHeaderForm(quote))), {
        payer,
        instructions: (parties) => paymentInstructions(transferChecked({ ...parties, payTo: sink.publicKey }, { amount })),
      });
      await sendRaw(world, drain);
      expect(world.localnet.usdcBalance(payer.publicKey)).toBe(0n);
      rpc.mode({ kind: 'pass' });
      const res = await answer;

      expect(errorOf(res)).toMatchObject({ code: -32007, data: { retryable: expect.any(Boolean) } });
      expect(recipient()).toBe(before);
      expect(world.upstreams.openai.requests).toHaveLength(0);
      expect((await get(task.id)).body.result?.status.state).toBe('input-required');
      expect((await pay(task.id, paymentFor(world, quote))).body.result?.status.state).toBe('completed');
      expect(recipient() - before).toBe(amount);
    });

    it('the provider failing after settlement: failed with receipts and no artifact, and the payment was charged (exact settles before serving)', async () => {
      const { task, quote, amount } = await quoteTask(gateway);
      allProviders({ kind: 'status', status: 500 });
      const [before, sent] = [recipient(), landed()];

      const res = await pay(task.id, paymentFor(world, quote));

      expect(res.body.error).toBeUndefined();
      const failed = res.body.result as A2ATaskBody;
      expect(failed.status.state).toBe('failed');
      expect(failed.artifacts).toBeUndefined();
      expect(receiptsOf(failed)).toEqual([{ tx_signature: expect.any(String), receipt: expect.stringMatching(/^\/v1\/receipts\//) }]);
      expect(world.upstreams.openai.requests.length).toBeGreaterThanOrEqual(1);
      expect(recipient() - before).toBe(amount);
      expect(landed() - sent).toBe(1);

      const read = await get(task.id);
      expect(read.body.result?.status.state).toBe('failed');
      expect(read.body.result?.artifacts).toBeUndefined();
      expect(receiptsOf(read.body.result as A2ATaskBody)).toEqual(receiptsOf(failed));
      expect(errorOf(await cancel(task.id))?.code).toBe(-32002);
      expect(errorOf(await pay(task.id, paymentFor(world, quote)))?.code).toBe(-32007);
      expect(recipient() - before).toBe(amount);
    });

    it('a budgeted payer wallet is -32007 (payment failed) before settlement, with nothing moved', async () => {
      const budgeted = Keypair.generate();
      world.localnet.airdrop(budgeted.publicKey, 1_000_000_000);
      world.localnet.fundUsdc(budgeted.publicKey, 1_000_000n);
      const put = await fetch(`${gateway.url}/v1/wallets/${budgeted.publicKey.toBase58()}/budget`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        body: JSON.stringify({ daily: 100 }),
      });
      expect(put.status).toBe(200);
      const { task, quote } = await quoteTask(gateway);
      const [before, sent] = [recipient(), landed()];

      const res = await pay(task.id, paymentFor(world, quote, { payer: budgeted }));

      expect(errorOf(res)?.code).toBe(-32007);
      expect(world.localnet.usdcBalance(budgeted.publicKey)).toBe(1_000_000n);
      expect(recipient()).toBe(before);
      expect(landed()).toBe(sent);
      expect(world.upstreams.openai.requests).toHaveLength(0);
      expect((await get(task.id)).body.result?.status.state).toBe('input-required');
    });

    it('a payment that does not match the stored offer (amount below the quote, another pay_to, network, asset or scheme) is -32007 without any chain call', async () => {
      const { task, quote, amount } = await quoteTask(gateway);
      const other = Keypair.generate().publicKey.toBase58();
      const payloads: Array<[string, SpecPayment]> = [
        ['amount below the quote', { amount: amount - 1n }],
        ['accepted.amount below the quote', { accepted: { amount: (amount - 1n).toString() } }],
        ['another pay_to', { accepted: { payTo: other } }],
        ['another network', { accepted: { network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' } }],
        ['another asset', { accepted: { asset: other } }],
        ['another scheme', { accepted: { scheme: 'escrow' } }],
      ];
      const [before, calls] = [recipient(), paymentCalls()];
      for (const [why, options] of payloads) {
        const res = await pay(task.id, paymentFor(world, quote, options));
        expect({ why, code: errorOf(res)?.code }).toEqual({ why, code: -32007 });
      }
      expect(paymentCalls()).toBe(calls);
      expect(recipient()).toBe(before);
      expect(world.upstreams.openai.requests).toHaveLength(0);
      expect((await get(task.id)).body.result?.status.state).toBe('input-required');
    });

    it('a payment already used for another task is refused -32007 (replay), nothing moved twice', async () => {
      const first = await quoteTask(gateway);
      const payload = paymentFor(world, first.quote);
      expect((await pay(first.task.id, payload)).body.result?.status.state).toBe('completed');
      const second = await quoteTask(gateway);
      expect(second.amount).toBe(first.amount);
      const [before, sent] = [recipient(), landed()];

      const replayed = await pay(second.task.id, payload);

      expect(errorOf(replayed)?.code).toBe(-32007);
      expect(recipient()).toBe(before);
      expect(landed()).toBe(sent);
      expect((await get(second.task.id)).body.result?.status.state).toBe('input-required');
    });

    it('a message on an existing task without payment-submitted, or with a payload that is not an object, is -32602', async () => {
      const { task } = await quoteTask(gateway);
      expect(errorOf(await a2aCall(gateway, 'message/send', userMessage('Say hello', {}, task.id)))?.code).toBe(-32602);
      expect(errorOf(await pay(task.id, 'not a payload'))?.code).toBe(-32602);
      expect(errorOf(await pay(task.id, { x402_version: 2 }))?.code).toBe(-32602);
      expect((await get(task.id)).body.result?.status.state).toBe('input-required');
    });
  });

  describe('cancel and unknown tasks', () => {
    it('cancels only from input-required: canceled shows the status alone, a later payment is refused before settlement (-32007), nothing moves', async () => {
      const { task, quote } = await quoteTask(gateway);
      const canceled = await cancel(task.id);
      expect(canceled.body.error).toBeUndefined();
      expect(canceled.body.result?.status.state).toBe('canceled');
      expect(canceled.body.result?.status.message).toBeUndefined();

      const read = await get(task.id);
      expect(read.body.result?.status.state).toBe('canceled');
      expect(read.body.result?.status.message).toBeUndefined();
      expect(read.body.result?.artifacts).toBeUndefined();

      const [before, sent, calls] = [recipient(), landed(), paymentCalls()];
      const payment = await pay(task.id, paymentFor(world, quote));
      expect(errorOf(payment)?.code).toBe(-32007);
      expect(recipient()).toBe(before);
      expect(landed()).toBe(sent);
      expect(paymentCalls()).toBe(calls);
      expect(world.upstreams.openai.requests).toHaveLength(0);
      expect(errorOf(await cancel(task.id))?.code).toBe(-32002);
      expect((await get(task.id)).body.result?.status.state).toBe('canceled');
    });

    it('an unknown or malformed task id is -32001 on tasks/get, tasks/cancel and a payment', async () => {
      const { quote } = await quoteTask(gateway);
      const unknown = `a2a_${'0'.repeat(32)}`;
      for (const id of [unknown, 'not-a-task', `a2a_${'Z'.repeat(32)}`, 42, null, undefined]) {
        expect({ id, code: errorOf(await get(id))?.code }).toEqual({ id, code: -32001 });
        expect({ id, code: errorOf(await cancel(id))?.code }).toEqual({ id, code: -32001 });
      }
      const [before, calls] = [recipient(), paymentCalls()];
      expect(errorOf(await pay(unknown, paymentFor(world, quote)))?.code).toBe(-32001);
      expect(errorOf(await pay('not-a-task', paymentFor(world, quote)))?.code).toBe(-32001);
      expect(recipient()).toBe(before);
      expect(paymentCalls()).toBe(calls);
    });
  });

  describe('the JSON-RPC envelope', () => {
    const rpcBody = (body: Record<string, unknown>) => JSON.stringify(body);

    it('jsonrpc other than 2.0 is -32600 with the id echoed', async () => {
      const res = await rawPost(gateway, rpcBody({ jsonrpc: '1.0', id: 7, method: 'tasks/get', params: { id: 'x' } }));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
    });

    it('push-notification config methods are -32003', async () => {
      const { task } = await quoteTask(gateway);
      for (const method of ['tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/delete']) {
        const res = await a2aCall(gateway, method, { taskId: task.id, id: task.id, pushNotificationConfig: { url: 'https://127.0.0.1/hook' } });
        expect({ method, status: res.status, code: errorOf(res)?.code }).toEqual({ method, status: 200, code: -32003 });
      }
    });

    it('message/stream, tasks/resubscribe and an unknown method are -32601', async () => {
      for (const method of ['message/stream', 'tasks/resubscribe', 'tasks/list-everything', 'agent/getAuthenticatedExtendedCard']) {
        const res = await a2aCall(gateway, method, userMessage('Say hello'));
        expect({ method, status: res.status, code: errorOf(res)?.code }).toEqual({ method, status: 200, code: -32601 });
      }
    });

    it('a batch, a request without id and invalid JSON are HTTP 4xx with no JSON-RPC envelope', async () => {
      const one = { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } };
      const cases: Array<[string, string]> = [
        ['batch', JSON.stringify([one, { ...one, id: 2 }])],
        ['missing id', JSON.stringify({ jsonrpc: '2.0', method: 'tasks/get', params: { id: 'x' } })],
        ['invalid JSON', '{"jsonrpc": "2.0", "id": 1, "method": '],
      ];
      for (const [why, body] of cases) {
        const res = await rawPost(gateway, body);
        expect({ why, client: res.status >= 400 && res.status < 500 }).toEqual({ why, client: true });
        expect({ why, envelope: /"jsonrpc"/.test(res.text) }).toEqual({ why, envelope: false });
      }
      expect((await rawPost(gateway, cases[2][1])).status).toBe(400);
    });

    it('x-a2a-extensions naming the x402 URI is echoed on every /a2a response, results and errors alike', async () => {
      const headers = { 'x-a2a-extensions': X402_EXTENSION_URI };
      const quoted = await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL }), headers);
      expect(quoted.body.result?.status.state).toBe('input-required');
      expect(quoted.headers.get('x-a2a-extensions')).toBe(X402_EXTENSION_URI);
      const failed = await a2aCall(gateway, 'message/stream', userMessage('Say hello'), headers);
      expect(errorOf(failed)?.code).toBe(-32601);
      expect(failed.headers.get('x-a2a-extensions')).toBe(X402_EXTENSION_URI);
      const notFound = await a2aCall(gateway, 'tasks/get', { id: 'nope' }, headers);
      expect(errorOf(notFound)?.code).toBe(-32001);
      expect(notFound.headers.get('x-a2a-extensions')).toBe(X402_EXTENSION_URI);
      const without = await a2aCall(gateway, 'tasks/get', { id: 'nope' });
      expect(without.headers.get('x-a2a-extensions')).toBeNull();
    });
  });

  describe('the agent card', () => {
    it('is served at /.well-known/agent-card.json and /.well-known/agent.json with the spec 2.13 fields (exact only without escrow)', async () => {
      const [card, legacy] = await Promise.all(['/.well-known/agent-card.json', '/.well-known/agent.json'].map(async (path) => fetch(`${gateway.url}${path}`)));
      expect(card.status).toBe(200);
      expect(legacy.status).toBe(200);
      const body = (await card.json()) as Record<string, unknown>;
      expect(await legacy.json()).toEqual(body);
      expectCard(body, { url: `${gateway.url}/a2a`, mint: world.mint.toBase58(), schemes: ['exact'] });
    });
  });
});

/** Spec 2.13's AgentCard, with what the gateway is configured with. */
function expectCard(card: Record<string, unknown>, expected: { url: string; mint: string; schemes: string[] }): void {
  expect(card).toMatchObject({
    name: expect.any(String),
    description: expect.any(String),
    url: expected.url,
    version,
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    provider: { organization: expect.any(String), url: expect.any(String) },
    capabilities: { streaming: false, pushNotifications: false },
  });
  const extensions = (card.capabilities as { extensions: Array<{ uri: string; required: boolean; params: Record<string, unknown> }> }).extensions;
  expect(extensions).toHaveLength(2);
  expect(extensions.find((extension) => extension.uri === AP2_EXTENSION_URI)).toMatchObject({ required: true, params: { roles: ['merchant'] } });
  expect(extensions.find((extension) => extension.uri === X402_EXTENSION_URI)).toMatchObject({ required: true, params: { network: 'solana', asset: expected.mint, schemes: expected.schemes } });
  const skills = card.skills as Array<Record<string, unknown>>;
  expect(skills).toEqual([
    expect.objectContaining({ id: 'chat-completion', name: expect.any(String), description: expect.any(String), tags: expect.any(Array), inputModes: ['text/plain'], outputModes: ['text/plain'] }),
  ]);
}

describe('A2A task expiry and the tasks/get rate limit (spec 3.1, 7, 8)', () => {
  let world: PaidWorld;
  let shortLived: RunningGateway;
  let limited: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    [shortLived, limited] = await Promise.all([startPaidGateway(world, { GW_A2A_TASK_TTL_SECS: '1' }), startPaidGateway(world, { GW_A2A_GET_RATE_LIMIT: '3' })]);
  });
  afterAll(async () => {
    await shortLived?.close();
    await limited?.close();
    await world?.close();
  });

  it('after the task TTL (GW_A2A_TASK_TTL_SECS=1) a payment, tasks/get and tasks/cancel are -32001; nothing moves', async () => {
    const { task, quote } = await quoteTask(shortLived);
    expect((await a2aCall(shortLived, 'tasks/get', { id: task.id })).body.result?.status.state).toBe('input-required');
    await sleep(1300);
    const before = world.localnet.usdcBalance(world.recipient.publicKey);
    const sent = world.localnet.sentTransactions().length;

    const paid = await a2aCall(shortLived, 'message/send', paidMessage(paymentFor(world, quote), task.id));

    expect(paid.body.error?.code).toBe(-32001);
    expect((await a2aCall(shortLived, 'tasks/get', { id: task.id })).body.error?.code).toBe(-32001);
    expect((await a2aCall(shortLived, 'tasks/cancel', { id: task.id })).body.error?.code).toBe(-32001);
    expect(world.localnet.usdcBalance(world.recipient.publicKey)).toBe(before);
    expect(world.localnet.sentTransactions()).toHaveLength(sent);
  });

  it('tasks/get past GW_A2A_GET_RATE_LIMIT=3 is HTTP 429 with Retry-After', async () => {
    const { task } = await quoteTask(limited);
    for (let i = 0; i < 3; i++) {
      const res = await a2aCall(limited, 'tasks/get', { id: task.id });
      expect(res.status).toBe(200);
      expect(res.body.result?.status.state).toBe('input-required');
    }
    const refused = await fetch(`${limited.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { id: task.id } }),
    });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    await refused.text();
    // Only tasks/get is limited: a quote still answers.
    expect((await a2aCall(limited, 'message/send', userMessage('Say hello', { model: PAID_MODEL }))).body.result?.status.state).toBe('input-required');
  });
});

describe('the agent card on an escrow world (spec 2.13)', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld({ escrow: true });
    // Escrow is on only with receipt storage.
    gateway = await startPaidGateway(world, (await pgliteStorage()).env);
  });
  afterAll(async () => {
    await gateway?.close();
    await world?.close();
  });

  it('declares the schemes exact and escrow; an A2A quote offers both', async () => {
    const { quote } = await quoteTask(gateway);
    expect(quote.accepts.map((offer) => offer.scheme)).toEqual(['exact', 'escrow']);
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
      const res = await fetch(`${gateway.url}${path}`);
      expect(res.status).toBe(200);
      expectCard((await res.json()) as Record<string, unknown>, { url: `${gateway.url}/a2a`, mint: world.mint.toBase58(), schemes: ['exact', 'escrow'] });
    }
  });
});

// redis-server is installed wherever the shared Redis runs; elsewhere this reports itself skipped.
const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

describeWithRedis('A2A tasks in Redis, when Redis dies (spec 7: -32603, never a half-written task)', () => {
  let world: PaidWorld;
  let redis: PrivateRedis;
  let gateway: RunningGateway;

  beforeAll(async () => {
    [world, redis] = await Promise.all([startPaidWorld(), startPrivateRedis()]);
    gateway = await startPaidGateway(world, { REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await gateway?.close();
    await redis?.close();
    await world?.close();
  });

  it('a task created in Redis; with Redis gone tasks/get and a new quote are -32603 (retryable)', async () => {
    const { task, quote } = await quoteTask(gateway);
    expect((await a2aCall(gateway, 'tasks/get', { id: task.id })).body.result?.status.state).toBe('input-required');

    await redis.kill();

    const read = await a2aCall(gateway, 'tasks/get', { id: task.id });
    expect(read.status).toBe(200);
    expect(read.body.error).toMatchObject({ code: -32603, data: expect.objectContaining({ retryable: true }) });
    expect(read.body.result).toBeUndefined();
    const quoted = await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL }));
    expect(quoted.status).toBe(200);
    expect(quoted.body.error?.code).toBe(-32603);
    expect(quoted.body.result).toBeUndefined();
    const before = world.localnet.usdcBalance(world.recipient.publicKey);
    const paid = await a2aCall(gateway, 'message/send', paidMessage(paymentFor(world, quote), task.id));
    expect(paid.body.error?.code).toBe(-32603);
    expect(world.localnet.usdcBalance(world.recipient.publicKey)).toBe(before);
  });
});
