import type { PaymentRequiredBody } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { a2aCall, a2aPaymentPayload, userMessage, type A2ATaskBody } from '../../support/a2a-client';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { PAID_MODEL, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { pgliteStorage } from '../../support/storage-env';

/**
 * Adversarial probes of A2A's payment leg on the local chain: what a payer gets for its money when
 * the serve outlives the HTTP request timeout or the task record, and which limits stand before
 * the work of a payment attempt.
 */
describe('A2A payments under attack', () => {
  let world: PaidWorld;
  const gateways: RunningGateway[] = [];
  const start = async (env: Record<string, string>): Promise<RunningGateway> => {
    const gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env });
    gateways.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    world = await startPaidWorld();
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await world.close();
  });

  const recipient = () => world.localnet.usdcBalance(world.recipient.publicKey);
  const paymentFor = (required: PaymentRequiredBody): unknown => a2aPaymentPayload(world, required);
  const quoteTask = async (gateway: RunningGateway, text = 'Say hello'): Promise<{ task: A2ATaskBody; required: PaymentRequiredBody }> => {
    const quoted = await a2aCall(gateway, 'message/send', userMessage(text, { model: PAID_MODEL, max_tokens: 50 }));
    if (!quoted.body.result) throw new Error(`quote refused: ${JSON.stringify(quoted.body).slice(0, 300)}`);
    const task = quoted.body.result;
    return { task, required: task.status.message!.metadata!['x402.payment.required'] as PaymentRequiredBody };
  };
  const submitted = (payload: unknown) => ({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload });

  it('a paid task whose serve outlives GW_REQUEST_TIMEOUT_SECS answers its JSON-RPC result, not a 408 (the timeout is suspended at the broadcast, as on chat)', async () => {
    const gateway = await start({ GW_REQUEST_TIMEOUT_SECS: '1' });
    const { task, required } = await quoteTask(gateway);
    world.upstreams.openai.setDefault({ kind: 'reply', firstByteDelayMs: 2500 });
    const before = recipient();

    const paid = await a2aCall(gateway, 'message/send', userMessage('Say hello', submitted(paymentFor(required)), task.id));

    // The agent was charged: it must be told so, in the JSON-RPC envelope (spec 7: A2A answers HTTP 200).
    expect(recipient() - before).toBe(BigInt(required.accepts[0].amount));
    expect(paid.status).toBe(200);
    expect(paid.body.result?.status.state).toBe('completed');
  }, 30_000);

  it('a paid task whose record lapses during the serve still hands the payer its answer (never -32603 "retryable" after the money moved)', async () => {
    // The task's TTL runs from `working` (persisted before the settlement); the serve bound is not checked against it.
    const gateway = await start({ GW_A2A_TASK_TTL_SECS: '2' });
    const { task, required } = await quoteTask(gateway);
    world.upstreams.openai.setDefault({ kind: 'reply', firstByteDelayMs: 3000 });
    const before = recipient();

    const paid = await a2aCall(gateway, 'message/send', userMessage('Say hello', submitted(paymentFor(required)), task.id));

    expect(recipient() - before).toBe(BigInt(required.accepts[0].amount));
    expect(paid.body.error).toBeUndefined();
    expect(paid.body.result?.status.state).toBe('completed');
    expect(paid.body.result?.artifacts?.[0].parts[0].text).toBe('fake openai reply to: Say hello');
  }, 30_000);

  it('bogus payment attempts on a task meet the payment-attempt window before the planner and the prompt guard run over its text', async () => {
    // GW_RATE_LIMIT_MAX 2: 2 quotes a minute, 8 payment attempts a minute for this client address.
    const gateway = await start({ GW_RATE_LIMIT_MAX: '2' });
    const { task, required } = await quoteTask(gateway, 'word '.repeat(19_000));
    const bogus = paymentFor(required) as { accepted: Record<string, unknown> };
    bogus.accepted.amount = '1';
    const statuses: number[] = [];
    const codes: Array<number | undefined> = [];
    const started = performance.now();
    for (let i = 0; i < 30; i++) {
      const res = await a2aCall(gateway, 'message/send', userMessage('x', submitted(bogus), task.id));
      statuses.push(res.status);
      codes.push(res.body.error?.code);
    }
    const perAttemptMs = (performance.now() - started) / 30;
    // Reported for the record: each refused attempt replans and re-guards the stored ~450 KB text.
    process.stdout.write(`a2a bogus payment attempt: ${perAttemptMs.toFixed(1)} ms each; statuses ${[...new Set(statuses)].join(',')}; codes ${[...new Set(codes)].join(',')}\n`);
    expect(statuses).toContain(429);
  }, 120_000);
});
