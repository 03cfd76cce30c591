import type Anthropic from '@anthropic-ai/sdk';
import { APIError, BadRequestError, NotFoundError } from '@anthropic-ai/sdk';
import { freeChatWorld } from '../../support/free-chat-world';
import { anthropicClient } from '../../support/anthropic-client';

/** One zero-priced model per provider in the test catalog, each on its own fake: every provider answers in Anthropic's shape. */
const FAKE_OF = {
  'openai/gpt-test-free': 'openai',
  'anthropic/claude-test-free': 'anthropic',
  'google/gemini-test-free': 'google',
  'xai/grok-test-free': 'xai',
  'deepseek/deepseek-test-free': 'deepseek',
  'nvidia/llama-3.3-70b-instruct': 'nvidia',
} as const;
const FREE_MODELS = Object.keys(FAKE_OF) as Array<keyof typeof FAKE_OF>;
/** Anthropic's own thinking blocks are signed: its models get them back in anthropic-passthrough.e2e-spec.ts. */
const TRANSLATED_MODELS = FREE_MODELS.filter((model) => FAKE_OF[model] !== 'anthropic');

const WEATHER_TOOL = { name: 'weather', description: 'the weather in a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

describe('the unmodified @anthropic-ai/sdk on /v1/messages, free path', () => {
  const world = freeChatWorld();
  let client: Anthropic;
  beforeAll(() => {
    client = anthropicClient(world.gateway.url);
  });

  it.each(FREE_MODELS)('answers messages.create on %s in Anthropic shape', async (model) => {
    const message = await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Say hello.' }] });

    expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn', stop_sequence: null });
    expect(message.id).toMatch(/^msg_/);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('Say hello.') })]);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it.each(FREE_MODELS)('streams on %s through messages.stream to finalMessage()', async (model) => {
    const stream = client.messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Stream please.' }] });
    const events: string[] = [];
    stream.on('streamEvent', (event) => events.push(event.type));
    const message = await stream.finalMessage();

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('Stream please.') })]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(events[0]).toBe('message_start');
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(events).toContain('content_block_delta');
  });

  it.each(TRANSLATED_MODELS)('runs a tool round trip on %s: tool_use, a tool_result with is_error and a thinking block in history, then the answer', async (model) => {
    const fake = world.upstreams[FAKE_OF[model]];
    fake.script({ kind: 'reply', toolCalls: [{ name: 'weather', arguments: { city: 'Paris' } }] }, { kind: 'reply', text: 'It failed, sorry.' });

    const first = await client.messages.create({ model, max_tokens: 64, tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ type: 'tool_use', name: 'weather', input: { city: 'Paris' } });
    if (call?.type !== 'tool_use') throw new Error('no tool_use');

    const second = await client.messages.create({
      model,
      max_tokens: 64,
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'I should call the tool.', signature: 'sig' }, ...first.content] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'service down', is_error: true }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'It failed, sorry.' }]);
    expect(second.stop_reason).toBe('end_turn');
    const upstream = JSON.stringify(fake.requests.at(-1)?.body);
    expect(upstream).toContain('Error: service down');
    expect(upstream).not.toContain('I should call the tool.');
  });

  it('streams a tool call as tool_use with input_json_delta, parsed by the SDK', async () => {
    world.upstreams.openai.script({ kind: 'reply', toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] });
    const stream = client.messages.stream({ model: 'openai/gpt-test-free', max_tokens: 64, tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const message = await stream.finalMessage();

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'weather', input: { city: 'Oslo' } })]);
    expect(deltas).toContain('input_json_delta');
  });

  it('ends a stream that fails midway with an error event, which the SDK raises', async () => {
    world.upstreams.openai.script({ kind: 'cut-stream', afterChunks: 3 }, { kind: 'cut-stream', afterChunks: 3 });
    const body = { model: 'openai/gpt-test-free', max_tokens: 64, stream: true, messages: [{ role: 'user' as const, content: 'A long answer please.' }] };

    const res = await fetch(`${world.gateway.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    expect(text).toMatch(/^event: message_start\n/);
    const last = text.trim().split('\n\n').at(-1) ?? '';
    expect(last.split('\n')[0]).toBe('event: error');
    expect(JSON.parse(last.split('\n')[1].slice('data: '.length))).toMatchObject({ type: 'error', error: { code: expect.stringMatching(/^upstream\./) } });
    expect(text).not.toContain('message_stop');

    await expect(client.messages.stream(body).finalMessage()).rejects.toBeInstanceOf(APIError);
  });

  it('sends the system prompt and the stop sequences upstream', async () => {
    await client.messages.create({
      model: 'openai/gpt-test-free',
      max_tokens: 64,
      system: [{ type: 'text', text: 'You are terse.' }],
      stop_sequences: ['END'],
      temperature: 0.2,
      top_k: 5,
      metadata: { user_id: 'u-1' },
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const body = world.upstreams.openai.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }>; stop: unknown; temperature: number; user: string; top_k?: unknown };
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
    expect(body.stop).toEqual(['END']);
    expect(body.temperature).toBe(0.2);
    expect(body.user).toBe('u-1');
    expect(body.top_k).toBeUndefined();
  });

  it('raises BadRequestError for a body without max_tokens, with the gateway code, and NotFoundError for an unknown model', async () => {
    const missing = await client.messages
      .create({ model: 'openai/gpt-test-free', messages: [{ role: 'user', content: 'Hi' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(BadRequestError);
    expect((missing as BadRequestError).error).toMatchObject({ type: 'error', error: { code: 'request.invalid_body', param: 'max_tokens' } });

    const unknown = await client.messages.create({ model: 'nobody/no-model', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }).catch((err: unknown) => err);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect((unknown as NotFoundError).error).toMatchObject({ type: 'error', error: { code: 'chat.model_not_found' } });
  });

  it('ignores unknown fields, takes null as unset and accepts the anthropic-version and anthropic-beta headers without an api key', async () => {
    const res = await fetch(`${world.gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'whatever-2025' },
      body: JSON.stringify({ model: 'openai/gpt-test-free', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], temperature: null, system: null, invented: { a: 1 }, container: 'x' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { type: string }).type).toBe('message');
    expect(JSON.stringify(world.upstreams.openai.requests.at(-1)?.body)).not.toContain('invented');
  });

  it('resolves a bare Anthropic model id with a date suffix to its catalog entry', async () => {
    const message = await client.messages.create({ model: 'claude-test-20250101', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });

    expect(message.content[0]).toMatchObject({ type: 'text' });
    expect(world.upstreams.anthropic.requests).toHaveLength(1);
  });

  it('keeps its own response cache entries: the same request on chat does not answer it, a repeat on Messages does', async () => {
    const ask = 'Cache me on both surfaces.';
    await world.client.chat.completions.create({ model: 'openai/gpt-test-free', max_tokens: 32, messages: [{ role: 'user', content: ask }] });
    const first = await client.messages.create({ model: 'openai/gpt-test-free', max_tokens: 32, messages: [{ role: 'user', content: ask }] });
    const again = await client.messages.create({ model: 'openai/gpt-test-free', max_tokens: 32, messages: [{ role: 'user', content: ask }] });

    expect(world.upstreams.openai.requests).toHaveLength(2);
    expect(again.content).toEqual(first.content);
  });

  it('counts tokens with the estimate the quote is priced on', async () => {
    const counted = await client.messages.countTokens({ model: 'openai/gpt-test-free', system: 'Be brief.', messages: [{ role: 'user', content: 'x'.repeat(400) }] });

    // ceil((9 + 400) / 4) code points of text (docs/decisions.md, "Requests and the estimate").
    expect(counted).toEqual({ input_tokens: 103 });
    expect(world.upstreams.openai.requests).toHaveLength(0);
  });
});
