import type { EventSourceMessage } from 'eventsource-parser';
import { llmProviderFailuresContract } from '../../../../test/contracts/llm-provider-failures.contract';
import { adapterOnFake } from '../../../../test/support/adapter-on-fake';
import { ANTHROPIC_ON_FAKE } from '../../../../test/support/anthropic-on-fake';
import { weather } from '../../../../test/support/spec-fakes';
import type { ChatRequest } from '../../../modules/providers/domain/chat-request';
import type { ChatCompletionChunk, ChunkDelta } from '../../../modules/providers/domain/chat-completion';
import { anthropicChunks } from './anthropic-stream';

const weatherTool = { type: 'function' as const, function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

const upstream = adapterOnFake(ANTHROPIC_ON_FAKE);
const { call, completion, chunks, sentBody } = upstream;

function deltas(received: ChatCompletionChunk[]): ChunkDelta[] {
  return received.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
}

describe('AnthropicProvider, requests', () => {
  it('posts to /messages with the key, the API version, the upstream model and max_tokens = the billed cap', async () => {
    await completion(call());

    const record = await upstream.fake.arrived(0);
    expect(record).toMatchObject({ method: 'POST', path: '/v1/messages', headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' } });
    expect(record.body).toEqual({ model: 'claude-test', max_tokens: 321, messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }], stream: false });
  });

  it('lifts system and developer messages into system, prefixes names, drops empty content and merges the turns left adjacent', async () => {
    await completion(
      call({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi', name: 'alice' },
          { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
          { role: 'assistant', content: null },
          { role: 'user' },
          { role: 'user', content: [{ type: 'text', text: 'again' }] },
        ],
      }),
    );

    expect(await sentBody()).toMatchObject({
      system: 'Be brief.\n\nAnswer in French.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'alice: hi' },
            { type: 'text', text: 'again' },
          ],
        },
      ],
    });
  });

  it('clamps temperature to 1, sends it alone, maps stop and drops what Anthropic has no field for', async () => {
    const request = call({
      temperature: 1.5,
      top_p: 0.9,
      stop: 'END',
      seed: 7,
      presence_penalty: 1,
      frequency_penalty: 1,
      logprobs: true,
      reasoning_effort: 'high',
      service_tier: 'flex',
      metadata: { a: 'b' },
    });
    await completion(request);

    const body = await sentBody();
    expect(body).toMatchObject({ temperature: 1, stop_sequences: ['END'] });
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model', 'stop_sequences', 'stream', 'temperature']);
    expect(upstream.provider.adjustments(request)).toEqual({
      dropped: ['top_p', 'seed', 'presence_penalty', 'frequency_penalty', 'logprobs', 'reasoning_effort', 'metadata', 'service_tier'],
      rewritten: ['temperature'],
    });
  });

  it('sends user as metadata.user_id', async () => {
    const request = call({ user: 'user-42' });
    await completion(request);

    expect(await sentBody()).toMatchObject({ metadata: { user_id: 'user-42' } });
    expect(upstream.provider.adjustments(request)).toEqual({ dropped: [], rewritten: ['user'] });
  });

  describe('response_format, as a tool the model must call', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const format = { type: 'json_schema' as const, json_schema: { name: 'place', schema } };

    it('sends the schema as the forced tool and answers its input as the content, a plain stop', async () => {
      upstream.fake.script({ kind: 'reply', toolCalls: [{ name: 'place', arguments: { city: 'Lima' } }] });
      const request = call({ response_format: format });

      const answer = await completion(request);

      expect(await sentBody()).toMatchObject({ tools: [{ name: 'place', input_schema: schema }], tool_choice: { type: 'tool', name: 'place' } });
      expect(answer.choices[0]).toMatchObject({ message: { content: '{"city":"Lima"}' }, finish_reason: 'stop' });
      expect(answer.choices[0].message.tool_calls).toBeUndefined();
      expect(upstream.provider.adjustments(request)).toEqual({ dropped: [], rewritten: ['response_format'] });
    });

    it('streams the input as content', async () => {
      upstream.fake.script({ kind: 'reply', toolCalls: [{ name: 'json_output', arguments: { ok: true, n: 12345678 } }] });

      const received = await chunks(call({ response_format: { type: 'json_object' } }, true));

      expect(received.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('{"ok":true,"n":12345678}');
      expect(received.some((chunk) => chunk.choices[0]?.delta.tool_calls)).toBe(false);
      expect(received.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
    });

    it('streams an input without fields as {}', async () => {
      upstream.fake.script({ kind: 'reply', toolCalls: [{ name: 'json_output', arguments: {} }] });

      const received = await chunks(call({ response_format: { type: 'json_object' } }, true));

      expect(received.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('{}');
    });

    it('is dropped when the client brings its own tools, which need the tool channel', async () => {
      const tools = [{ type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object' } } }];
      const request = call({ response_format: format, tools });
      await completion(request);

      expect(await sentBody()).toMatchObject({ tools: [{ name: 'get_time' }] });
      expect((await sentBody()).tool_choice).toBeUndefined();
      expect(upstream.provider.adjustments(request)).toEqual({ dropped: ['response_format'], rewritten: [] });
    });
  });

  it('sends top_p when no temperature is given', async () => {
    await completion(call({ top_p: 0.5, stop: ['a', 'b'] }));

    expect(await sentBody()).toMatchObject({ top_p: 0.5, stop_sequences: ['a', 'b'] });
  });

  it('sends image parts as base64 or URL image blocks', async () => {
    const content = [
      { type: 'text' as const, text: 'What is this?' },
      { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url' as const, image_url: { url: 'https://example.com/cat.jpg', detail: 'high' as const } },
    ];

    await completion(call({ messages: [{ role: 'user', content }] }));

    expect((await sentBody()).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it.each([
    ['auto', undefined, { type: 'auto' }],
    ['none', undefined, { type: 'none' }],
    ['required', false, { type: 'any', disable_parallel_tool_use: true }],
    [{ type: 'function' as const, function: { name: 'get_weather' } }, undefined, { type: 'tool', name: 'get_weather' }],
    [undefined, false, { type: 'auto', disable_parallel_tool_use: true }],
  ] as const)('maps tool_choice %j (parallel_tool_calls %s)', async (toolChoice, parallel, expected) => {
    await completion(call({ tools: [weatherTool], tool_choice: toolChoice, parallel_tool_calls: parallel }));

    expect((await sentBody()).tool_choice).toEqual(expected);
  });
});

describe('AnthropicProvider, replies', () => {
  it('maps a JSON message to a chat.completion', async () => {
    const reply = await completion(call());

    expect(reply).toEqual({
      id: expect.stringMatching(/^msg_fake\d+$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'claude-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'fake anthropic reply to: hello there', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 },
    });
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content_filter'],
  ] as const)('maps the stop reason for %s', async (finishReason, expected) => {
    upstream.fake.script({ kind: 'reply', finishReason, usage: false });

    const reply = await completion(call());

    expect(reply.choices[0].finish_reason).toBe(expected);
    expect(reply.usage).toBeUndefined();
  });

  it('streams role first, content deltas, the finish reason, then a usage chunk', async () => {
    const received = await chunks(call());

    expect(received[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const content = received.slice(1, -2).map((chunk) => chunk.choices[0].delta.content);
    expect(content).toEqual(['fake ', 'anthropic ', 'reply ', 'to: ', 'hello ', 'there']);
    expect(received.at(-2)?.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }]);
    expect(received.at(-1)).toMatchObject({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 } });
    expect(new Set(received.map((chunk) => `${chunk.id} ${chunk.model} ${chunk.created}`)).size).toBe(1);
    expect(received[0]).toMatchObject({ id: expect.stringMatching(/^msg_fake\d+$/), model: 'claude-test' });
    expect(await sentBody()).toMatchObject({ stream: true, max_tokens: 321 });
  });

  it('streams no usage chunk when the provider reports none', async () => {
    upstream.fake.script({ kind: 'reply', usage: false });

    const received = await chunks(call());

    expect(received.at(-1)?.choices[0].finish_reason).toBe('stop');
    expect(received.some((chunk) => chunk.usage)).toBe(false);
  });
});

describe('AnthropicProvider, tool calls', () => {
  const history: Partial<ChatRequest> = {
    tools: [weatherTool],
    messages: [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '{"celsius":21}' },
      { role: 'tool', tool_call_id: 'toolu_2', content: null },
      { role: 'user', content: 'And now?' },
    ],
  };

  it('sends tools, tool_use and tool_result blocks, and maps the tool_use reply back to tool_calls', async () => {
    upstream.fake.script({ kind: 'reply', toolCalls: [weather] });

    const reply = await completion(call(history));

    expect(await sentBody()).toMatchObject({
      tools: [{ name: 'get_weather', description: 'Weather now', input_schema: weatherTool.function.parameters }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            // Arguments cut short are not JSON: sent as an empty input.
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"celsius":21}' },
            { type: 'tool_result', tool_use_id: 'toolu_2' },
            { type: 'text', text: 'And now?' },
          ],
        },
      ],
    });
    expect(reply.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: expect.stringMatching(/^toolu_fake\d+_0$/), type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(weather.arguments) } }],
      },
    });
  });

  it('streams tool calls as a named delta per call, then argument fragments under its index', async () => {
    upstream.fake.script({ kind: 'reply', text: 'Checking.', toolCalls: [weather, { name: 'get_time', arguments: {} }] });

    const received = await chunks(call(history));

    const toolDeltas = deltas(received).flatMap((delta) => delta.tool_calls ?? []);
    expect(toolDeltas.filter((delta) => delta.id !== undefined)).toEqual([
      { index: 0, id: expect.stringMatching(/^toolu_fake\d+_0$/), type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 1, id: expect.stringMatching(/^toolu_fake\d+_1$/), type: 'function', function: { name: 'get_time', arguments: '' } },
    ]);
    const argumentsOf = (index: number): string =>
      toolDeltas
        .filter((delta) => delta.index === index)
        .map((delta) => delta.function?.arguments)
        .join('');
    expect([argumentsOf(0), argumentsOf(1)]).toEqual([JSON.stringify(weather.arguments), '{}']);
    expect(
      deltas(received)
        .map((delta) => delta.content ?? '')
        .join(''),
    ).toBe('Checking.');
    expect(received.at(-2)?.choices[0].finish_reason).toBe('tool_calls');
  });
});

describe('AnthropicProvider, failures', () => {
  llmProviderFailuresContract({ ...ANTHROPIC_ON_FAKE, provider: 'anthropic', cutStreamAfter: 4 });

  it.each([
    ['overloaded_error', 'unavailable'],
    ['invalid_request_error', 'bad_response'],
  ] as const)('throws on an error event (%s) mid-stream', async (type, kind) => {
    const start = { type: 'message_start', message: { id: 'msg_1', model: 'claude-test', content: [], usage: { input_tokens: 1, output_tokens: 1 } } };
    const events: EventSourceMessage[] = [
      { event: 'message_start', data: JSON.stringify(start), id: undefined },
      { event: 'error', data: JSON.stringify({ type: 'error', error: { type, message: 'Overloaded' } }), id: undefined },
    ];
    const received: ChatCompletionChunk[] = [];

    const consume = async (): Promise<void> => {
      for await (const chunk of anthropicChunks(toAsync(events))) received.push(chunk);
    };

    await expect(consume()).rejects.toMatchObject({ name: 'UpstreamError', kind });
    expect(received).toHaveLength(1);
  });
});

async function* toAsync<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}
