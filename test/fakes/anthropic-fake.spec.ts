import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { expectAbortRecorded, useFake, weather } from '../support/spec-fakes';
import { startAnthropicFake } from './anthropic-fake';
import type { Fake } from './fake-server';

const request: MessageCreateParamsNonStreaming = {
  model: 'claude-fake',
  max_tokens: 100,
  system: 'be brief',
  messages: [{ role: 'user', content: 'hello there' }],
};

let fake: Fake;
let client: Anthropic;

useFake(startAnthropicFake, (started) => {
  fake = started;
  // The SDK adds /v1/messages to the origin; the gateway gets fake.url, which ends in /v1.
  client = new Anthropic({ baseURL: fake.origin, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
});

async function streamEvents(): Promise<RawMessageStreamEvent[]> {
  const events: RawMessageStreamEvent[] = [];
  for await (const event of await client.messages.create({ ...request, stream: true })) events.push(event);
  return events;
}

async function rawEventNames(): Promise<string[]> {
  const response = await fetch(`${fake.url}/messages`, {
    method: 'POST',
    headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, stream: true }),
  });
  return [...(await response.text()).matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
}

describe('Anthropic fake, replies', () => {
  it('answers JSON with a text block, stop reason and usage, given the SDK headers', async () => {
    const message = await client.messages.create(request);

    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-fake', stop_reason: 'end_turn' });
    expect(message.content).toEqual([{ type: 'text', text: 'fake anthropic reply to: hello there', citations: null }]);
    expect(message.usage).toMatchObject({ input_tokens: 5, output_tokens: 6 });
    expect(fake.requests[0]).toMatchObject({ path: '/v1/messages', headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' } });
  });

  it('streams the real event sequence, ping included', async () => {
    const names = await rawEventNames();
    const events = await streamEvents();

    expect(names).toEqual(['message_start', 'content_block_start', 'ping', ...Array<string>(6).fill('content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
    const text = events.map((event) => (event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? event.delta.text : '')).join('');
    expect(text).toBe('fake anthropic reply to: hello there');
    expect(events.find((event) => event.type === 'message_start')).toMatchObject({ message: { usage: { input_tokens: 5 } } });
    expect(events.find((event) => event.type === 'message_delta')).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 6 } });
  });

  it('returns tool_use blocks in JSON', async () => {
    fake.script({ kind: 'reply', toolCalls: [weather] });

    const message = await client.messages.create(request);

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: weather.arguments }]);
  });

  it('streams tool input as JSON fragments that the SDK puts back together', async () => {
    fake.script({ kind: 'reply', text: 'Checking.', toolCalls: [weather, { name: 'get_time', arguments: {} }] });

    const message = await client.messages.stream(request).finalMessage();

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'text', text: 'Checking.', citations: null },
      { type: 'tool_use', id: expect.any(String), name: 'get_weather', input: weather.arguments },
      { type: 'tool_use', id: expect.any(String), name: 'get_time', input: {} },
    ]);
  });

  it('leaves usage out and reports the finish reason it is given', async () => {
    fake.script({ kind: 'reply', usage: false, finishReason: 'length' }, { kind: 'reply', usage: false });

    const message = await client.messages.create(request);
    const events = await streamEvents();

    expect(message.usage).toBeUndefined();
    expect(message.stop_reason).toBe('max_tokens');
    expect(events.some((event) => 'usage' in event || (event.type === 'message_start' && 'usage' in event.message))).toBe(false);
  });
});

describe('Anthropic fake, faults', () => {
  it.each([
    [429, '7', 'rate_limit_error'],
    [429, undefined, 'rate_limit_error'],
    [400, undefined, 'invalid_request_error'],
    [503, undefined, 'overloaded_error'],
  ])('answers status %i (Retry-After %s) with the Anthropic error body', async (status, retryAfter, type) => {
    fake.script({ kind: 'status', status, retryAfter });

    const error: unknown = await client.messages.create(request).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(status);
    expect((error as APIError).headers?.get('retry-after') ?? undefined).toBe(retryAfter);
    expect((error as APIError).error).toEqual({ type: 'error', error: { type, message: `fake anthropic error ${status}` } });
  });

  it('fails once with 500 and then answers', async () => {
    fake.script({ kind: 'status', status: 500 }, { kind: 'reply' });

    await expect(client.messages.create(request)).rejects.toMatchObject({ status: 500 });
    await expect(client.messages.create(request)).resolves.toMatchObject({ type: 'message' });
  });

  it('resets the connection', async () => {
    fake.script({ kind: 'reset' });

    await expect(client.messages.create(request)).rejects.toBeInstanceOf(APIConnectionError);
  });

  it('cuts a stream after the given number of events', async () => {
    fake.script({ kind: 'cut-stream', afterChunks: 4 });
    const received: RawMessageStreamEvent[] = [];

    const consume = async (): Promise<void> => {
      for await (const event of await client.messages.create({ ...request, stream: true })) received.push(event);
    };

    await expect(consume()).rejects.toThrow();
    // message_start, content_block_start, (ping, which the SDK drops), one delta.
    expect(received.map((event) => event.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
  });

  it('sends an event whose data is not JSON', async () => {
    fake.script({ kind: 'malformed-chunk' });
    // The SDK's raw stream logs the bad event to the console whatever its logLevel.
    const console = jest.spyOn(global.console, 'error').mockImplementation(() => undefined);

    await expect(streamEvents()).rejects.toBeInstanceOf(SyntaxError);
    expect(console).toHaveBeenCalledWith('Could not parse message into JSON:', expect.any(String));
    console.mockRestore();
  });

  it('ends a stream without message_stop', async () => {
    fake.script({ kind: 'missing-done' }, { kind: 'missing-done' });

    const events = await streamEvents();
    const names = await rawEventNames();

    expect(events.at(-1)?.type).toBe('message_delta');
    expect(names).not.toContain('message_stop');
  });

  it('answers 200 with a body that is not JSON', async () => {
    fake.script({ kind: 'malformed-json' });

    await expect(client.messages.create(request)).rejects.toThrow();
  });

  it('records a client abort while it is slow to the first byte', async () => {
    fake.script({ kind: 'reply', firstByteDelayMs: 5000 });
    const controller = new AbortController();

    const pending = client.messages.create(request, { signal: controller.signal });
    await fake.arrived(0);
    const abortedAt = Date.now();
    controller.abort();

    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    await expectAbortRecorded(fake, abortedAt);
  });

  it('refuses a request without anthropic-version or without an API key', async () => {
    const headers = { 'content-type': 'application/json' };
    const body = JSON.stringify(request);

    const unversioned = await fetch(`${fake.url}/messages`, { method: 'POST', headers: { ...headers, 'x-api-key': 'k' }, body });
    const keyless = await fetch(`${fake.url}/messages`, { method: 'POST', headers: { ...headers, 'anthropic-version': '2023-06-01' }, body });

    expect([unversioned.status, await unversioned.json()]).toEqual([400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } }]);
    expect([keyless.status, await keyless.json()]).toEqual([401, { type: 'error', error: { type: 'authentication_error', message: 'invalid API key' } }]);
  });

  it('refuses an empty messages list as the real API does, with a request-id', async () => {
    const error: unknown = await client.messages.create({ ...request, messages: [] }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).error).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: at least one message is required' } });
    expect((error as APIError).requestID).toMatch(/^req_/);
  });

  it('streams a tool called without arguments as one empty input_json_delta', async () => {
    fake.script({ kind: 'reply', toolCalls: [{ name: 'get_time', arguments: {} }] });

    const events = await streamEvents();

    expect(events.filter((event) => event.type === 'content_block_delta').map((event) => event.delta)).toEqual([{ type: 'input_json_delta', partial_json: '' }]);
  });
});

describe('Anthropic fake, thinking and what the real API refuses', () => {
  const thinking = { type: 'enabled' as const, budget_tokens: 1024 };

  it('thinks first when asked: a signed thinking block, streamed as thinking_delta then signature_delta', async () => {
    const message = await client.messages.create({ ...request, max_tokens: 2048, thinking });
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: 'fake thinking about: hello there', signature: expect.any(String) });

    const streamed = await client.messages.stream({ ...request, max_tokens: 2048, thinking }).finalMessage();
    expect(streamed.content).toEqual(message.content);
  });

  it('takes its own thinking back unchanged, and refuses it changed', async () => {
    const first = await client.messages.create({ ...request, max_tokens: 2048, thinking });
    const back = (content: typeof first.content): MessageCreateParamsNonStreaming => ({
      ...request,
      max_tokens: 2048,
      thinking,
      messages: [...request.messages, { role: 'assistant', content }, { role: 'user', content: 'go on' }],
    });

    await expect(client.messages.create(back(first.content))).resolves.toMatchObject({ type: 'message' });
    const forged = first.content.map((block) => (block.type === 'thinking' ? { ...block, thinking: 'something else' } : block));
    await expect(client.messages.create(back(forged))).rejects.toMatchObject({ status: 400 });
  });

  it.each<[string, Partial<MessageCreateParamsNonStreaming>]>([
    ['an extra field', { invented: 1 } as Partial<MessageCreateParamsNonStreaming>],
    ['an empty text block', { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }],
    ['a budget below 1,024', { max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 500 } }],
    ['a budget not below max_tokens', { max_tokens: 1024, thinking }],
    ['a temperature while thinking', { max_tokens: 2048, thinking, temperature: 0.5 }],
    ['top_k while thinking', { max_tokens: 2048, thinking, top_k: 5 }],
    ['a forced tool while thinking', { max_tokens: 2048, thinking, tools: [{ name: 'w', input_schema: { type: 'object' } }], tool_choice: { type: 'any' } }],
    ['five cache_control breakpoints', { system: Array.from({ length: 5 }, () => ({ type: 'text' as const, text: 'x', cache_control: { type: 'ephemeral' as const } })) }],
    [
      'a tool loop while thinking whose assistant turn does not start with its thinking',
      {
        max_tokens: 2048,
        thinking,
        messages: [
          { role: 'user', content: 'weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'w', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'sunny' }] },
        ],
      },
    ],
  ])('refuses %s with 400', async (_name, change) => {
    await expect(client.messages.create({ ...request, ...change })).rejects.toMatchObject({ status: 400 });
  });
});
