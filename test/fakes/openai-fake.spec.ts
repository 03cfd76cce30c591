import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { expectAbortRecorded, useFake, weather } from '../support/spec-fakes';
import type { Fake } from './fake-server';
import { startOpenAiFake } from './openai-fake';

const request: ChatCompletionCreateParamsNonStreaming = {
  model: 'gpt-fake',
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello there' },
  ],
};

let fake: Fake;
let client: OpenAI;

useFake(startOpenAiFake, (started) => {
  fake = started;
  client = new OpenAI({ baseURL: fake.url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
});

async function streamChunks(options: { includeUsage?: boolean } = {}): Promise<ChatCompletionChunk[]> {
  const stream = await client.chat.completions.create({ ...request, stream: true, ...(options.includeUsage && { stream_options: { include_usage: true } }) });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

async function rawStream(): Promise<string> {
  const response = await fetch(`${fake.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, stream: true }),
  });
  return response.text();
}

function contentOf(chunks: ChatCompletionChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
}

describe('OpenAI fake, replies', () => {
  it('answers JSON with an echo of the last user text and deterministic usage', async () => {
    const completion = await client.chat.completions.create(request);

    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-fake');
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: 'fake openai reply to: hello there' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    // 19 characters of prompt / 4, rounded up; 6 words of reply.
    expect(completion.usage).toEqual({ prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 });
    expect(fake.requests).toEqual([expect.objectContaining({ method: 'POST', path: '/v1/chat/completions', body: expect.objectContaining({ model: 'gpt-fake' }), aborted: false })]);
    expect(fake.requests[0].headers.authorization).toBe('Bearer k');
  });

  it('streams word pieces, a finish chunk, usage only when asked for, and [DONE]', async () => {
    const withUsage = await streamChunks({ includeUsage: true });
    const withoutUsage = await streamChunks();

    expect(contentOf(withUsage)).toBe('fake openai reply to: hello there');
    expect(withUsage[0].choices[0].delta.role).toBe('assistant');
    expect(withUsage.at(-2)?.choices[0].finish_reason).toBe('stop');
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } });
    expect(withoutUsage.every((chunk) => chunk.usage === undefined)).toBe(true);
    expect(withoutUsage.at(-1)?.choices[0].finish_reason).toBe('stop');
    expect((await rawStream()).endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('returns tool calls in JSON', async () => {
    fake.script({ kind: 'reply', toolCalls: [weather] });

    const { choices } = await client.chat.completions.create(request);

    expect(choices[0].finish_reason).toBe('tool_calls');
    expect(choices[0].message.content).toBeNull();
    expect(choices[0].message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(weather.arguments) } }]);
  });

  it('streams tool calls as deltas that the SDK puts back together', async () => {
    fake.script({ kind: 'reply', text: 'Checking.', toolCalls: [weather, { name: 'get_time', arguments: {} }] });

    const stream = client.chat.completions.stream({ ...request, stream: true });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const { choices } = await stream.finalChatCompletion();

    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas[0]).toEqual({ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '' } });
    // The name first, then the arguments in several fragments.
    expect(toolDeltas.filter((delta) => delta.index === 0).length).toBeGreaterThan(2);
    expect(choices[0].message.content).toBe('Checking.');
    expect(choices[0].message.tool_calls?.map((call) => call.type === 'function' && [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['get_weather', weather.arguments],
      ['get_time', {}],
    ]);
    expect(choices[0].finish_reason).toBe('tool_calls');
  });

  it('leaves usage out and reports the finish reason it is given', async () => {
    fake.script({ kind: 'reply', usage: false, finishReason: 'length' }, { kind: 'reply', usage: false });

    const completion = await client.chat.completions.create(request);
    const chunks = await streamChunks({ includeUsage: true });

    expect(completion.usage).toBeUndefined();
    expect(completion.choices[0].finish_reason).toBe('length');
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
  });

  it('leaves out refusal and logprobs from a bare JSON reply, as some compatible servers do', async () => {
    fake.script({ kind: 'reply', bare: true });

    const [choice] = (await client.chat.completions.create(request)).choices;

    expect(choice.message).toEqual({ role: 'assistant', content: 'fake openai reply to: hello there' });
    expect('logprobs' in choice).toBe(false);
  });
});

describe('OpenAI fake, faults', () => {
  it.each([
    [429, '7', 'rate_limit_exceeded'],
    [429, undefined, 'rate_limit_exceeded'],
    [400, undefined, null],
    [503, undefined, null],
  ])('answers status %i (Retry-After %s) with the OpenAI error body', async (status, retryAfter, code) => {
    fake.script({ kind: 'status', status, retryAfter });

    const error: unknown = await client.chat.completions.create(request).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(APIError);
    const { headers, error: body } = error as APIError;
    expect((error as APIError).status).toBe(status);
    expect(headers?.get('retry-after') ?? undefined).toBe(retryAfter);
    expect(body).toEqual({ message: `fake openai error ${status}`, type: expect.any(String), param: null, code });
  });

  it('fails once with 500 and then answers', async () => {
    fake.script({ kind: 'status', status: 500 }, { kind: 'reply' });

    await expect(client.chat.completions.create(request)).rejects.toMatchObject({ status: 500 });
    await expect(client.chat.completions.create(request)).resolves.toMatchObject({ object: 'chat.completion' });
  });

  it('keeps failing with the default behaviour', async () => {
    fake.setDefault({ kind: 'status', status: 503 });

    await expect(client.chat.completions.create(request)).rejects.toMatchObject({ status: 503 });
    await expect(client.chat.completions.create(request)).rejects.toMatchObject({ status: 503 });
  });

  it('resets the connection', async () => {
    fake.script({ kind: 'reset' });

    await expect(client.chat.completions.create(request)).rejects.toBeInstanceOf(APIConnectionError);
    expect((await fake.ended(0)).aborted).toBe(false);
  });

  it('cuts a stream after the given number of chunks', async () => {
    fake.script({ kind: 'cut-stream', afterChunks: 3 });
    const received: ChatCompletionChunk[] = [];

    const consume = async (): Promise<void> => {
      for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) received.push(chunk);
    };

    await expect(consume()).rejects.toThrow();
    expect(contentOf(received)).toBe('fake openai ');
  });

  it('cuts a JSON body half-way', async () => {
    fake.script({ kind: 'cut-stream', afterChunks: 0 });

    await expect(client.chat.completions.create(request)).rejects.toThrow();
  });

  it('sends a chunk that is not JSON', async () => {
    fake.script({ kind: 'malformed-chunk' });

    await expect(streamChunks()).rejects.toBeInstanceOf(SyntaxError);
  });

  it('ends a stream without [DONE]', async () => {
    fake.script({ kind: 'missing-done' }, { kind: 'missing-done' });

    const chunks = await streamChunks();
    const raw = await rawStream();

    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('stop');
    expect(raw).not.toContain('[DONE]');
    expect(raw).toContain('"finish_reason":"stop"');
  });

  it('answers 200 with a body that is not JSON', async () => {
    fake.script({ kind: 'malformed-json' });

    await expect(client.chat.completions.create(request)).rejects.toThrow();
  });

  it('records a client abort while it hangs', async () => {
    fake.script({ kind: 'hang' });
    const controller = new AbortController();

    const pending = client.chat.completions.create(request, { signal: controller.signal });
    await fake.arrived(0);
    const abortedAt = Date.now();
    controller.abort();

    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    await expectAbortRecorded(fake, abortedAt);
  });

  it('is slow to the first byte, or silent between chunks with the headers sent at once', async () => {
    fake.script({ kind: 'reply', firstByteDelayMs: 300 }, { kind: 'reply', chunkDelayMs: 50 });

    const jsonStartedAt = Date.now();
    await client.chat.completions.create(request);
    const jsonTook = Date.now() - jsonStartedAt;
    const streamStartedAt = Date.now();
    const stream = await client.chat.completions.create({ ...request, stream: true });
    const headersTook = Date.now() - streamStartedAt;
    for await (const chunk of stream) expect(chunk).toBeDefined();
    const streamTook = Date.now() - streamStartedAt;

    expect(jsonTook).toBeGreaterThanOrEqual(290);
    expect(headersTook).toBeLessThan(50);
    // 9 events: role, 6 words, finish, [DONE].
    expect(streamTook).toBeGreaterThanOrEqual(9 * 50 - 10);
  });

  it('refuses a wrong API key with 401', async () => {
    const strict = await startOpenAiFake({ apiKey: 'right' });
    try {
      const wrong = new OpenAI({ baseURL: strict.url, apiKey: 'wrong', maxRetries: 0, logLevel: 'off' });
      await expect(wrong.chat.completions.create(request)).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
      expect(strict.requests[0].behaviour).toBeUndefined();
    } finally {
      await strict.close();
    }
  });
});
