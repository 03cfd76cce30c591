import type Anthropic from '@anthropic-ai/sdk';
import { APIError } from '@anthropic-ai/sdk';
import { anthropicClient } from '../../support/anthropic-client';
import { freeChatWorld } from '../../support/free-chat-world';

const CLAUDE = 'anthropic/claude-test-free';
const WEATHER_TOOL = { name: 'weather', description: 'the weather in a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };
const THINKING = { type: 'enabled' as const, budget_tokens: 1024 };

/** The body the Anthropic fake got last. */
function sentToAnthropic(world: ReturnType<typeof freeChatWorld>): Record<string, unknown> {
  return world.upstreams.anthropic.requests.at(-1)?.body as Record<string, unknown>;
}

describe('/v1/messages passes an Anthropic model its own blocks, and the client its own answer', () => {
  const world = freeChatWorld();
  let client: Anthropic;
  beforeAll(() => {
    client = anthropicClient(world.gateway.url);
  });

  it('answers with thinking as Anthropic sent it: the signed thinking block, then the text, and all its usage fields', async () => {
    const message = await client.messages.create({ model: CLAUDE, max_tokens: 2048, thinking: THINKING, messages: [{ role: 'user', content: 'Think first.' }] });

    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'fake thinking about: Think first.', signature: expect.any(String) },
      { type: 'text', text: 'fake anthropic reply to: Think first.', citations: null },
    ]);
    expect(message.model).toBe(CLAUDE);
    expect(message.usage).toEqual({
      input_tokens: expect.any(Number),
      output_tokens: 11,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: null,
      server_tool_use: null,
      service_tier: 'standard',
    });
    expect(sentToAnthropic(world)).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 });
  });

  it('streams thinking_delta and signature_delta events that messages.stream reads to the same finalMessage()', async () => {
    const stream = client.messages.stream({ model: CLAUDE, max_tokens: 2048, thinking: THINKING, messages: [{ role: 'user', content: 'Think in a stream.' }] });
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const message = await stream.finalMessage();

    expect(deltas).toContain('thinking_delta');
    expect(deltas).toContain('signature_delta');
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'fake thinking about: Think in a stream.', signature: expect.any(String) });
    expect(message.content[1]).toMatchObject({ type: 'text', text: 'fake anthropic reply to: Think in a stream.' });
    expect(message.model).toBe(CLAUDE);
  });

  it('clamps the thinking budget below the max_tokens it forwards, and drops the temperature and top_k Anthropic refuses while thinking', async () => {
    await client.messages.create({ model: CLAUDE, max_tokens: 1500, thinking: { type: 'enabled', budget_tokens: 8000 }, temperature: 0.3, top_k: 4, messages: [{ role: 'user', content: 'Hi' }] });

    const sent = sentToAnthropic(world);
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 1499 });
    expect(sent.temperature).toBeUndefined();
    expect(sent.top_k).toBeUndefined();
  });

  it('forwards top_k without thinking, and thinks for no model when the forwarded cap leaves less than its minimum budget', async () => {
    await client.messages.create({ model: CLAUDE, max_tokens: 1000, thinking: THINKING, top_k: 4, messages: [{ role: 'user', content: 'Hi' }] });

    expect(sentToAnthropic(world).thinking).toBeUndefined();
    expect(sentToAnthropic(world).top_k).toBe(4);
  });

  it('runs a tool loop while thinking: its signed thinking and redacted thinking go back to Anthropic unchanged, and the loop goes on', async () => {
    world.upstreams.anthropic.script({ kind: 'reply', toolCalls: [{ name: 'weather', arguments: { city: 'Paris' } }], redactedThinking: true }, { kind: 'reply', text: 'Sunny in Paris.' });
    const ask = { role: 'user' as const, content: 'Weather in Paris?' };
    const first = await client.messages.create({ model: CLAUDE, max_tokens: 2048, thinking: THINKING, tools: [WEATHER_TOOL], messages: [ask] });
    expect(first.content.map((block) => block.type)).toEqual(['redacted_thinking', 'thinking', 'tool_use']);
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content[2];
    if (call.type !== 'tool_use') throw new Error('no tool_use');

    const second = await client.messages.create({
      model: CLAUDE,
      max_tokens: 2048,
      thinking: THINKING,
      tools: [WEATHER_TOOL],
      messages: [ask, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny' }] }],
    });

    expect(second.content.at(-1)).toMatchObject({ type: 'text', text: 'Sunny in Paris.' });
    const history = (sentToAnthropic(world).messages as Array<{ content: unknown }>)[1].content;
    expect(history).toEqual(first.content.map((block) => (block.type === 'text' ? { type: 'text', text: block.text } : block)));
  });

  it("raises the SDK's APIError when the loop leaves out the thinking Anthropic requires back, which Anthropic refuses", async () => {
    world.upstreams.anthropic.script({ kind: 'reply', toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] });
    const ask = { role: 'user' as const, content: 'Weather in Oslo?' };
    const first = await client.messages.create({ model: CLAUDE, max_tokens: 2048, thinking: THINKING, tools: [WEATHER_TOOL], messages: [ask] });
    const call = first.content.find((block) => block.type === 'tool_use');
    if (call?.type !== 'tool_use') throw new Error('no tool_use');

    const refused = await client.messages
      .create({
        model: CLAUDE,
        max_tokens: 2048,
        thinking: THINKING,
        tools: [WEATHER_TOOL],
        messages: [ask, { role: 'assistant', content: [call] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'rain' }] }],
      })
      .catch((err: unknown) => err);

    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError).error).toMatchObject({ type: 'error', error: { code: expect.stringMatching(/^upstream\./) } });
  });

  it.each([
    ['refusal', { finishReason: 'content_filter' as const }],
    ['pause_turn', { pauseTurn: true }],
  ])('passes the stop reason %s, as JSON and as a stream', async (reason, shape) => {
    world.upstreams.anthropic.script({ kind: 'reply', ...shape }, { kind: 'reply', ...shape });
    const json = await client.messages.create({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: `Stop with ${reason}.` }] });
    const streamed = await client.messages.stream({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: `Stream a stop with ${reason}.` }] }).finalMessage();

    expect(json.stop_reason).toBe(reason);
    expect(streamed.stop_reason).toBe(reason);
  });

  it('forwards cache_control to Anthropic and drops it for another provider', async () => {
    const body = {
      max_tokens: 64,
      system: [{ type: 'text' as const, text: 'A long, cached system prompt.', cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } }],
      tools: [{ ...WEATHER_TOOL, cache_control: { type: 'ephemeral' as const } }],
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi', cache_control: { type: 'ephemeral' as const } }] }],
    };
    await client.messages.create({ ...body, model: CLAUDE });
    await client.messages.create({ ...body, model: 'openai/gpt-test-free' });

    expect(sentToAnthropic(world)).toMatchObject({
      system: [{ type: 'text', text: 'A long, cached system prompt.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      tools: [{ name: 'weather', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
    });
    expect(JSON.stringify(world.upstreams.openai.requests.at(-1)?.body)).not.toContain('cache_control');
  });

  it('serves a cached thinking answer again with its thinking, signature and stop reason, as JSON and as a stream, without asking Anthropic twice', async () => {
    const request = { model: CLAUDE, max_tokens: 2048, thinking: THINKING, messages: [{ role: 'user' as const, content: 'Cache my thinking.' }] };
    const first = await client.messages.create(request);
    const again = await client.messages.create(request);
    const streamed = await client.messages.stream(request).finalMessage();

    expect(world.upstreams.anthropic.requests).toHaveLength(1);
    expect(again).toEqual(first);
    expect(streamed.content).toEqual(first.content);
    expect(streamed.stop_reason).toBe('end_turn');
    expect(streamed.usage.output_tokens).toBe(first.usage.output_tokens);
  });

  it('keeps thinking to Anthropic: another provider answers the same request without it', async () => {
    const message = await client.messages.create({ model: 'openai/gpt-test-free', max_tokens: 2048, thinking: THINKING, messages: [{ role: 'user', content: 'Think?' }] });

    expect(message.content.map((block) => block.type)).toEqual(['text']);
    expect(JSON.stringify(world.upstreams.openai.requests.at(-1)?.body)).not.toContain('thinking');
  });
});
