import type { PaymentRequiredBody } from '../../../libs/x402';
import { a2aCall, a2aPaymentPayload, userMessage, type A2ATaskBody } from '../../support/a2a-client';
import { paidGatewayOnPglite } from '../../support/paid-gateway-hooks';
import { PAID_MODEL, chatBody, postChat, quote, specPaymentHeader } from '../../support/paid-gateway';

/** A2A attacks that the gateway withstood at the time of writing: kept as regression guards (they pass). */
describe('A2A attacks that held', () => {
  const live = paidGatewayOnPglite();

  const recipient = () => live.world.localnet.usdcBalance(live.world.recipient.publicKey);
  const paymentFor = (required: PaymentRequiredBody): unknown => a2aPaymentPayload(live.world, required);
  const quoteTask = async (text = 'Say hello'): Promise<{ task: A2ATaskBody; required: PaymentRequiredBody }> => {
    const task = (await a2aCall(live.gateway, 'message/send', userMessage(text, { model: PAID_MODEL, max_tokens: 50 }))).body.result!;
    return { task, required: task.status.message!.metadata!['x402.payment.required'] as PaymentRequiredBody };
  };
  const submitted = (payload: unknown, extra: Record<string, unknown> = {}) => ({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload, ...extra });

  it('the paying message cannot change the quoted text, model or max_tokens', async () => {
    const { task, required } = await quoteTask('Say hello');
    const paid = await a2aCall(live.gateway, 'message/send', userMessage('Write a novel', submitted(paymentFor(required), { model: 'openai/gpt-4.1', max_tokens: 8192 }), task.id));
    expect(paid.body.result?.artifacts?.[0].parts[0].text).toBe('fake openai reply to: Say hello');
    const call = live.world.upstreams.openai.requests.at(-1) as { body: { model: string; max_tokens?: number; max_completion_tokens?: number } };
    expect(call.body.model).toBe('gpt-4o-mini');
    expect(call.body.max_tokens ?? call.body.max_completion_tokens).toBe(50);
  });

  it('two payments raced on one task: one is settled, the other refused before any funds move', async () => {
    const { task, required } = await quoteTask();
    const before = recipient();
    const [a, b] = await Promise.all([
      a2aCall(live.gateway, 'message/send', userMessage('x', submitted(paymentFor(required)), task.id)),
      a2aCall(live.gateway, 'message/send', userMessage('x', submitted(paymentFor(required)), task.id)),
    ]);
    const states = [a.body.result?.status.state, b.body.result?.status.state];
    expect(states.filter((s) => s === 'completed')).toHaveLength(1);
    expect(recipient() - before).toBe(BigInt(required.accepts[0].amount));
  });

  it('a payment used on one task is refused on another; a chat payment is refused on /a2a', async () => {
    const first = await quoteTask();
    const second = await quoteTask();
    const payload = paymentFor(first.required);
    expect((await a2aCall(live.gateway, 'message/send', userMessage('x', submitted(payload), first.task.id))).body.result?.status.state).toBe('completed');
    const reused = await a2aCall(live.gateway, 'message/send', userMessage('x', submitted(payload), second.task.id));
    expect(reused.body.error?.code).toBe(-32007);

    const chat = await quote(live.gateway, chatBody());
    const chatPayload = JSON.parse(Buffer.from(specPaymentHeader(live.world, chat.header, { amount: BigInt(second.required.accepts[0].amount) }), 'base64').toString()) as unknown;
    const crossed = await a2aCall(live.gateway, 'message/send', userMessage('x', submitted(chatPayload), second.task.id));
    expect(crossed.body.error?.code).toBe(-32007);
    expect((await postChat(live.gateway, chatBody())).status).toBe(402);
  });

  it('cancel while a payment is being served is refused (-32002); the payment completes', async () => {
    const { task, required } = await quoteTask();
    live.world.upstreams.openai.setDefault({ kind: 'reply', firstByteDelayMs: 1500 });
    const paying = a2aCall(live.gateway, 'message/send', userMessage('x', submitted(paymentFor(required)), task.id));
    await new Promise((resolve) => setTimeout(resolve, 700));
    const cancel = await a2aCall(live.gateway, 'tasks/cancel', { id: task.id });
    expect(cancel.body.error?.code).toBe(-32002);
    expect((await paying).body.result?.status.state).toBe('completed');
  });
});
