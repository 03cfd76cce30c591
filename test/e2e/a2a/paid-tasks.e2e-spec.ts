import type { PaymentRequiredBody } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { a2aCall, a2aPaymentPayload, userMessage } from '../../support/a2a-client';
import { escrowPaymentHeader, pollUntil, type EscrowReceiptBody } from '../../support/escrow-payments';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { paidGatewayOnPglite } from '../../support/paid-gateway-hooks';
import { PAID_MODEL, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { pgliteStorage } from '../../support/storage-env';

describe('A2A over JSON-RPC on the local chain (spec 2.13, 3.1, 4.8)', () => {
  const live = paidGatewayOnPglite();

  const recipient = () => live.world.localnet.usdcBalance(live.world.recipient.publicKey);
  const paymentFor = (required: PaymentRequiredBody): unknown => a2aPaymentPayload(live.world, required);

  it('quotes, is paid, and completes with the answer and its receipts; tasks/get projects every state', async () => {
    const quoted = await a2aCall(live.gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL, max_tokens: 50 }));
    expect(quoted.status).toBe(200);
    const task = quoted.body.result!;
    expect(task.status.state).toBe('input-required');
    const required = task.status.message!.metadata!['x402.payment.required'] as PaymentRequiredBody;
    expect(required.resource.url).toBe('/a2a');
    const amount = BigInt(required.accepts[0].amount);
    expect((await a2aCall(live.gateway, 'tasks/get', { id: task.id })).body.result?.status.state).toBe('input-required');

    const before = recipient();
    const paid = await a2aCall(live.gateway, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': paymentFor(required) }, task.id));
    expect(paid.body.error).toBeUndefined();
    const done = paid.body.result!;
    expect(done.status.state).toBe('completed');
    expect(done.artifacts?.[0].parts[0].text).toBe('fake openai reply to: Say hello');
    const receipts = done.status.message!.metadata!['x402.payment.receipts'] as Array<{ tx_signature: string; receipt: string }>;
    expect(receipts[0].receipt).toMatch(/^\/v1\/receipts\//);
    expect(recipient() - before).toBe(amount);
    expect((await a2aCall(live.gateway, 'tasks/get', { id: task.id })).body.result?.artifacts?.[0].parts[0].text).toBe('fake openai reply to: Say hello');
  });
});

describe('A2A paid with an escrow deposit (spec 4.8: escrow when configured)', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld({ escrow: true });
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_CLAIM_INTERVAL_MS: '50' });
  });
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  it('settles the deposit before serving, completes the task, and claims the real cost', async () => {
    const quoted = (await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL, max_tokens: 50 }))).body.result!;
    const required = quoted.status.message!.metadata!['x402.payment.required'] as PaymentRequiredBody;
    const offer = required.accepts.find((entry) => entry.scheme === 'escrow');
    expect(offer).toBeDefined();
    const agentBefore = world.localnet.usdcBalance(world.payer.publicKey);
    const { header } = await escrowPaymentHeader(world, gateway, { amount: BigInt(offer!.amount), resourceUrl: '/a2a' });
    const payload = JSON.parse(Buffer.from(header, 'base64').toString()) as unknown;
    const paid = await a2aCall(gateway, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, quoted.id));
    expect(paid.body.result?.status.state).toBe('completed');
    const receipts = paid.body.result!.status.message!.metadata!['x402.payment.receipts'] as Array<{ receipt: string }>;
    const settled = await pollUntil(
      async () => (await (await fetch(`${gateway.url}${receipts[0].receipt}`)).json()) as EscrowReceiptBody,
      (receipt) => receipt.status !== 'pending',
    );
    expect(settled).toMatchObject({ status: 'settled', scheme: 'escrow' });
    expect(agentBefore - world.localnet.usdcBalance(world.payer.publicKey)).toBe(BigInt(settled.amount_charged_atomic));
    expect(BigInt(settled.amount_charged_atomic)).toBeLessThan(BigInt(offer!.amount));
  });
});
