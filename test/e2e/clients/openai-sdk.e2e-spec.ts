import { createKeyPairSignerFromBytes } from '@solana/kit';
import { ExactSvmScheme } from '@x402/svm';
import OpenAI, { BadRequestError, NotFoundError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { SOLANA_MAINNET_NETWORK } from '../../../src/config/load-config';
import type { RunningGateway } from '../../../src/gateway';
import { freeChatWorld } from '../../support/free-chat-world';
import { OpenAiConformance } from '../../support/openai-schemas';
import { PAID_MODEL, startPaidGateway, startPaidWorld, type PaidWorld, chatBody, quote } from '../../support/paid-gateway';
import { exampleText, README, runPayingExample } from '../../support/paying-example';
import { pgliteStorage } from '../../support/storage-env';

const coreClient = require('@x402/core/client') as typeof import('@x402/core/dist/cjs/client');
const { wrapFetchWithPayment } = require('@x402/fetch') as typeof import('@x402/fetch/dist/cjs');

const FREE_MODEL = 'openai/gpt-test-free';

/**
 * Every optional field of a chat body sent as null, as the SDK's types allow it for most and other
 * clients (LangChain) send it for the rest: a tool round trip whose messages carry null `name`,
 * `tool_calls` and `tool_call_id` where they do not apply, and a tool whose function fields are null.
 */
function everyFieldNull(model: string, ask: string): ChatCompletionCreateParamsNonStreaming {
  return {
    model,
    messages: [
      { role: 'system', content: 'Be brief.', name: null },
      { role: 'user', content: 'What is the weather in Paris?', name: null, tool_calls: null, tool_call_id: null },
      { role: 'assistant', content: null, name: null, tool_call_id: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', content: 'sunny', tool_call_id: 'call_1', name: null, tool_calls: null },
      { role: 'user', content: ask, name: null, tool_calls: null, tool_call_id: null },
    ],
    tools: [{ type: 'function', function: { name: 'weather', description: null, parameters: null, strict: null } }],
    tool_choice: null,
    temperature: null,
    top_p: null,
    max_tokens: null,
    max_completion_tokens: null,
    stop: null,
    n: null,
    seed: null,
    presence_penalty: null,
    frequency_penalty: null,
    logprobs: null,
    top_logprobs: null,
    response_format: null,
    stream: null,
    stream_options: null,
    parallel_tool_calls: null,
    reasoning_effort: null,
    user: null,
    metadata: null,
    service_tier: null,
  } as unknown as ChatCompletionCreateParamsNonStreaming;
}

function streamed(body: ChatCompletionCreateParamsNonStreaming): ChatCompletionCreateParamsStreaming {
  return { ...body, stream: true } as ChatCompletionCreateParamsStreaming;
}

async function textOf(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

describe('the unmodified openai SDK on the free path', () => {
  const world = freeChatWorld();
  const conformance = new OpenAiConformance();
  let client: OpenAI;
  beforeAll(() => {
    client = new OpenAI({ baseURL: `${world.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, fetch: conformance.fetch() });
  });
  afterEach(async () => expect(await conformance.problems()).toEqual([]));

  it('sends every nullable field as null and gets a normal answer; nothing null reaches the provider', async () => {
    const completion = await client.chat.completions.create(everyFieldNull(FREE_MODEL, 'Nulls everywhere.'));

    expect(completion.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'fake openai reply to: Nulls everywhere.', refusal: null }, logprobs: null, finish_reason: 'stop' });
    const sent = world.upstreams.openai.requests[0].body as Record<string, unknown>;
    expect(JSON.stringify(sent)).not.toContain('null');
    expect(sent.tools).toEqual([{ type: 'function', function: { name: 'weather' } }]);
    expect(conformance.checked.CreateChatCompletionResponse).toBeGreaterThan(0);
  });

  it('streams with every nullable field as null, each chunk as OpenAI writes it', async () => {
    const before = conformance.checked.CreateChatCompletionStreamResponse;

    expect(await textOf(await client.chat.completions.create(streamed(everyFieldNull(FREE_MODEL, 'Stream the nulls.'))))).toBe('fake openai reply to: Stream the nulls.');
    expect(await conformance.problems()).toEqual([]);
    expect(conformance.checked.CreateChatCompletionStreamResponse - before).toBeGreaterThan(3);
  });

  it('finds the cached answer of the same request without the nulls, and serves it with refusal and logprobs', async () => {
    const debug = { headers: { 'x-gw-debug': 'true' } };
    const first = await client.chat.completions.create(everyFieldNull(FREE_MODEL, 'Cache me.'), debug).withResponse();
    const { messages } = everyFieldNull(FREE_MODEL, 'Cache me.');
    const plain = messages.map((message) => Object.fromEntries(Object.entries(message).filter(([, value]) => value !== null))) as unknown as typeof messages;
    const again = await client.chat.completions.create({ model: FREE_MODEL, messages: plain, tools: [{ type: 'function', function: { name: 'weather' } }] }, debug).withResponse();

    expect([first.response.headers.get('x-gw-cache'), again.response.headers.get('x-gw-cache')]).toEqual(['miss', 'hit']);
    expect(again.data.choices[0]).toMatchObject({ message: { content: 'fake openai reply to: Cache me.', refusal: null }, logprobs: null });
    expect(world.upstreams.openai.requests).toHaveLength(1);
  });

  it('gets refusal and logprobs from a compatible provider that leaves them out', async () => {
    world.upstreams.openai.script({ kind: 'reply', bare: true });

    const completion = await client.chat.completions.create({ model: FREE_MODEL, messages: [{ role: 'user', content: 'Bare, please.' }] });

    expect(completion.choices[0]).toMatchObject({ message: { content: 'fake openai reply to: Bare, please.', refusal: null }, logprobs: null });
  });

  it('lists the models, each as OpenAI describes a model', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);

    expect(models.length).toBeGreaterThanOrEqual(20);
    expect(models.find((model) => model.id === FREE_MODEL)).toMatchObject({ object: 'model', owned_by: 'openai', created: expect.any(Number) });
    expect(conformance.checked.Model).toBeGreaterThanOrEqual(models.length);
  });

  it('retrieves a model by its id (sent with %2F), by an alias, and by its id with a raw slash', async () => {
    const byId = await client.models.retrieve('openai/gpt-4o');
    const byAlias = await client.models.retrieve('gpt');
    const byRawSlash = await client.get<OpenAI.Model>('/models/openai/gpt-4o');

    expect(byId).toMatchObject({ id: 'openai/gpt-4o', object: 'model', owned_by: 'openai' });
    expect(byAlias).toMatchObject({ id: 'openai/gpt-5.2', owned_by: 'openai' });
    expect(byRawSlash).toEqual(byId);
  });

  it("raises the SDK's typed errors with the envelope's code and param: a profile is no model, a bad field is named", async () => {
    const profile: unknown = await client.models.retrieve('auto').catch((caught: unknown) => caught);
    const invalid: unknown = await client.chat.completions.create({ model: FREE_MODEL, messages: [{ role: 'user', content: 'hi' }], temperature: 3 }).catch((caught: unknown) => caught);

    expect(profile).toBeInstanceOf(NotFoundError);
    expect(profile).toMatchObject({ status: 404, code: 'chat.model_not_found', param: null, type: 'model_not_found' });
    expect(invalid).toBeInstanceOf(BadRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'request.invalid_body', param: 'temperature', message: '400 temperature must be <= 2' });
  });
});

describe('the unmodified openai SDK on the paid path, paying through @x402/fetch', () => {
  const conformance = new OpenAiConformance();
  let world: PaidWorld;
  let gateway: RunningGateway;
  let client: OpenAI;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world);
    const payer = new coreClient.x402Client().register(SOLANA_MAINNET_NETWORK, new ExactSvmScheme(await createKeyPairSignerFromBytes(world.payer.secretKey), { rpcUrl: world.localnet.url }));
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, fetch: wrapFetchWithPayment(conformance.fetch(), payer) });
  });
  afterEach(async () => expect(await conformance.problems()).toEqual([]));
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  it('pays for a JSON answer to a body of nulls, assembled from the upstream stream with refusal and logprobs', async () => {
    const before = world.localnet.usdcBalance(world.payer.publicKey);

    const completion = await client.chat.completions.create(everyFieldNull(PAID_MODEL, 'Paid nulls.'));

    expect(completion.choices[0]).toMatchObject({ message: { content: 'fake openai reply to: Paid nulls.', refusal: null }, logprobs: null, finish_reason: 'stop' });
    expect(world.localnet.usdcBalance(world.payer.publicKey)).toBeLessThan(before);
    expect(conformance.checked.CreateChatCompletionResponse).toBe(1);
  });

  it('pays for a stream of the same, each chunk as OpenAI writes it', async () => {
    expect(await textOf(await client.chat.completions.create(streamed(everyFieldNull(PAID_MODEL, 'Paid stream.'))))).toBe('fake openai reply to: Paid stream.');
    expect(await conformance.problems()).toEqual([]);
    expect(conformance.checked.CreateChatCompletionStreamResponse).toBeGreaterThan(3);
  });
});

const EXAMPLE = 'openai-sdk-paying.mjs';

describe("the README's example: the openai SDK paying with @x402/fetch", () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, (await pgliteStorage()).env);
  });
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  it('is in the README as it is in examples/', () => {
    expect(README).toContain(`\`\`\`js\n${exampleText(EXAMPLE)}\`\`\`\n`);
  });

  it('run as a newcomer runs it, pays the quote from a wallet with no SOL and prints the answer', async () => {
    const { amount } = await quote(gateway, chatBody());

    const run = await runPayingExample(world, gateway, EXAMPLE);

    expect(run).toEqual({ stdout: 'fake openai reply to: Say hello\n', received: amount, spent: amount });
  });
});
