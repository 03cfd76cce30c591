import type Anthropic from '@anthropic-ai/sdk';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { ExactSvmScheme } from '@x402/svm';
import { SOLANA_MAINNET_NETWORK } from '../../../src/config/load-config';
import type { RunningGateway } from '../../../src/gateway';
import { anthropicClient } from '../../support/anthropic-client';
import { chatBody, PAID_MODEL, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { postJson, routeQuote } from '../../support/paid-tools';
import { README, runPayingExample } from '../../support/paying-example';
import { pgliteStorage } from '../../support/storage-env';

const coreClient = require('@x402/core/client') as typeof import('@x402/core/dist/cjs/client');
const { wrapFetchWithPayment } = require('@x402/fetch') as typeof import('@x402/fetch/dist/cjs');

const MESSAGES_PATH = '/v1/messages';

/** The Anthropic body of chatBody(): the same neutral request, so the same price. */
function messagesBody(overrides: Record<string, unknown> = {}): Anthropic.MessageCreateParamsNonStreaming {
  return { model: PAID_MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'Say hello' }], ...overrides } as Anthropic.MessageCreateParamsNonStreaming;
}

/**
 * Pays `body`'s quote for a stream, leaves once `marker` (an event's delta type) has arrived, and
 * resolves when `fake` has finished its answer anyway: the payment header, to resend, and the quote.
 */
async function payAndLeave(world: PaidWorld, gateway: RunningGateway, body: unknown, fake: PaidWorld['upstreams']['openai'], marker: string): Promise<{ payment: string; amount: bigint }> {
  const header = await routeQuote(gateway, MESSAGES_PATH, body);
  const payment = specPaymentHeader(world, header);
  const upstream = fake.requests.length;
  const leaving = new AbortController();
  const res = await postJson(gateway, MESSAGES_PATH, body, { 'payment-signature': payment }, leaving.signal);
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let seen = '';
  while (!seen.includes(marker)) seen += new TextDecoder().decode((await reader.read()).value);
  leaving.abort();
  await fake.ended(upstream);
  return { payment, amount: BigInt(header.accepts[0].amount) };
}

describe('the unmodified @anthropic-ai/sdk on /v1/messages, paid path, paying through @x402/fetch', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;
  let client: Anthropic;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, (await pgliteStorage()).env);
    const payer = new coreClient.x402Client().register(SOLANA_MAINNET_NETWORK, new ExactSvmScheme(await createKeyPairSignerFromBytes(world.payer.secretKey), { rpcUrl: world.localnet.url }));
    client = anthropicClient(gateway.url, wrapFetchWithPayment(fetch, payer));
  });
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  it('answers a paid model without payment with the x402 402: the PAYMENT-REQUIRED header, /v1/messages as the resource, and no bazaar', async () => {
    const res = await postJson(gateway, MESSAGES_PATH, messagesBody());

    expect(res.status).toBe(402);
    expect(res.headers.get('payment-required')).toBeTruthy();
    const body = (await res.json()) as { x402_version?: number; resource?: { url: string }; extensions?: Record<string, unknown> };
    expect(body.x402_version).toBe(2);
    expect(JSON.stringify(body)).toContain(MESSAGES_PATH);
    expect(JSON.stringify(body)).not.toContain('bazaar');
  });

  it('quotes the same request the same on chat and on Messages', async () => {
    const onChat = await quote(gateway, chatBody());
    const onMessages = await routeQuote(gateway, MESSAGES_PATH, messagesBody());

    expect(BigInt(onMessages.accepts[0].amount)).toBe(onChat.amount);
    expect(onMessages.resource.url).toMatch(/\/v1\/messages$/);
  });

  it('pays for a JSON answer: the recipient is up by exactly the quote and the receipt settles, naming /v1/messages', async () => {
    const body = messagesBody({ messages: [{ role: 'user', content: 'Paid hello.' }] });
    const amount = BigInt((await routeQuote(gateway, MESSAGES_PATH, body)).accepts[0].amount);
    const before = world.localnet.usdcBalance(world.recipient.publicKey);

    const { data: message, response } = await client.messages.create(body).withResponse();

    expect(message.content).toEqual([{ type: 'text', text: 'fake openai reply to: Paid hello.' }]);
    expect(world.localnet.usdcBalance(world.recipient.publicKey) - before).toBe(amount);
    expect(response.headers.get('payment-response')).toBeTruthy();
    const receiptPath = response.headers.get('x-gw-receipt');
    expect(receiptPath).toMatch(/^\/v1\/receipts\//);
    const receipt = (await (await fetch(`${gateway.url}${receiptPath}`)).json()) as { status: string; endpoint: string; amount_charged_atomic: string };
    expect(receipt).toMatchObject({ status: 'settled', endpoint: MESSAGES_PATH, amount_charged_atomic: amount.toString() });
  });

  it('pays for a stream that messages.stream reads to finalMessage()', async () => {
    const before = world.localnet.usdcBalance(world.payer.publicKey);

    const message = await client.messages.stream(messagesBody({ messages: [{ role: 'user', content: 'Paid stream.' }] })).finalMessage();

    expect(message.content).toEqual([{ type: 'text', text: 'fake openai reply to: Paid stream.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(world.localnet.usdcBalance(world.payer.publicKey)).toBeLessThan(before);
  });

  it('charges a paid stream cut after content began once, and redelivers it, parsed by the SDK, on an identical resend', async () => {
    const text = 'one two three four five six seven eight nine ten';
    const body = messagesBody({ stream: true, messages: [{ role: 'user', content: 'Cut me off.' }] });
    const upstream = world.upstreams.openai.requests.length;
    world.upstreams.openai.script({ kind: 'reply', text, chunkDelayMs: 100 });
    const before = world.localnet.usdcBalance(world.recipient.publicKey);

    const { payment, amount } = await payAndLeave(world, gateway, body, world.upstreams.openai, 'text_delta');

    const stream = anthropicClient(gateway.url).messages.stream(body, { headers: { 'payment-signature': payment } });
    const { response } = await stream.withResponse();
    const message = await stream.finalMessage();

    expect(response.headers.get('x-gw-redelivered')).toBe('true');
    expect(message.content).toEqual([{ type: 'text', text }]);
    expect(world.upstreams.openai.requests).toHaveLength(upstream + 1);
    expect(world.localnet.usdcBalance(world.recipient.publicKey) - before).toBe(amount);
  });

  it('pays for a JSON answer from an Anthropic model that thinks: the message rebuilt from the stream the payment rode on is the one Anthropic sent', async () => {
    const body = messagesBody({
      model: 'anthropic/claude-sonnet-4',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'weather', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'Think, paid.' }],
    });
    world.upstreams.anthropic.script({ kind: 'reply', redactedThinking: true, toolCalls: [{ name: 'weather', arguments: { city: 'Lima', days: [1, 2] } }] });
    const amount = BigInt((await routeQuote(gateway, MESSAGES_PATH, body)).accepts[0].amount);
    const before = world.localnet.usdcBalance(world.recipient.publicKey);

    const message = await client.messages.create(body);

    expect(message.content).toEqual([
      { type: 'redacted_thinking', data: expect.any(String) },
      { type: 'thinking', thinking: 'fake thinking about: Think, paid.', signature: expect.any(String) },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'weather', input: { city: 'Lima', days: [1, 2] } },
    ]);
    expect(message).toMatchObject({ model: 'anthropic/claude-sonnet-4', stop_reason: 'tool_use', usage: { cache_creation_input_tokens: 0, service_tier: 'standard' } });
    expect(world.localnet.usdcBalance(world.recipient.publicKey) - before).toBe(amount);
  });

  it('charges a paid Anthropic stream once from its first thinking, and redelivers its thinking, signature and text, as Anthropic sent them, on an identical resend', async () => {
    const thinking = 'first this then that and then the other thing';
    const body = messagesBody({
      model: 'anthropic/claude-sonnet-4',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      stream: true,
      messages: [{ role: 'user', content: 'Think, then cut.' }],
    });
    const upstream = world.upstreams.anthropic.requests.length;
    world.upstreams.anthropic.script({ kind: 'reply', thinking, text: 'done now', chunkDelayMs: 60 });
    const before = world.localnet.usdcBalance(world.recipient.publicKey);

    const { payment, amount } = await payAndLeave(world, gateway, body, world.upstreams.anthropic, 'thinking_delta');

    const stream = anthropicClient(gateway.url).messages.stream(body as unknown as Anthropic.MessageCreateParamsStreaming, { headers: { 'payment-signature': payment } });
    const { response } = await stream.withResponse();
    const message = await stream.finalMessage();

    expect(response.headers.get('x-gw-redelivered')).toBe('true');
    expect(message.content).toEqual([
      { type: 'thinking', thinking, signature: expect.any(String) },
      { type: 'text', text: 'done now', citations: null },
    ]);
    expect(message.model).toBe('anthropic/claude-sonnet-4');
    expect(world.upstreams.anthropic.requests).toHaveLength(upstream + 1);
    expect(world.localnet.usdcBalance(world.recipient.publicKey) - before).toBe(amount);
  });

  it("runs examples/anthropic-sdk-paying.mjs, which the README's Anthropic note names, as a newcomer runs it: a bare Anthropic id, paid from a wallet with no SOL", async () => {
    const example = 'anthropic-sdk-paying.mjs';
    const amount = BigInt((await routeQuote(gateway, MESSAGES_PATH, messagesBody({ model: 'claude-haiku-4-5' }))).accepts[0].amount);

    const run = await runPayingExample(world, gateway, example);

    expect(README).toContain(`\`examples/${example}\``);
    expect(run).toEqual({ stdout: 'fake anthropic reply to: Say hello\n', received: amount, spent: amount });
  });
});
