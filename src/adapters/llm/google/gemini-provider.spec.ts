import type { EventSourceMessage } from 'eventsource-parser';
import type { Fake } from '../../../../test/fakes/fake-server';
import { startGeminiFake } from '../../../../test/fakes/gemini-fake';
import { Secret } from '../../../config/secret';
import type { ChatRequest } from '../../../modules/chat/domain/chat-request';
import type { ChatCompletion, ChatCompletionChunk } from '../../../modules/providers/domain/chat-completion';
import { UpstreamError } from '../../../modules/providers/domain/upstream-error';
import type { UpstreamCall } from '../../../modules/providers/ports/llm-provider';
import { UpstreamHttp } from '../upstream-http';
import { GeminiProvider } from './gemini-provider';
import { geminiCompletion } from './gemini-response';
import { geminiChunks } from './gemini-stream';

const weather = { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } };
const weatherTool = { type: 'function' as const, function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const CALL_ID = /^call_[0-9a-f]{24}$/;

let fake: Fake;
let http: UpstreamHttp;
let provider: GeminiProvider;

beforeAll(async () => {
  fake = await startGeminiFake({ apiKey: 'gemini-test-key' });
  http = new UpstreamHttp({ connectMs: 2000, firstByteMs: 5000, idleMs: 5000 });
  provider = new GeminiProvider({ baseUrl: fake.url, apiKey: new Secret('gemini-test-key') }, http);
});
afterEach(() => fake.reset());
afterAll(async () => {
  await http.close();
  await fake.close();
});

function call(request: Partial<ChatRequest> = {}, stream = false): UpstreamCall {
  return { upstreamModel: 'gemini-test', request: { model: 'gateway-alias', messages: [{ role: 'user', content: 'hello there' }], ...request }, maxTokens: 321, stream };
}

async function completion(upstreamCall: UpstreamCall, signal = new AbortController().signal): Promise<ChatCompletion> {
  const reply = await provider.send(upstreamCall, signal);
  if (reply.kind !== 'json') throw new Error('expected a JSON reply');
  return reply.completion;
}

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const received: ChatCompletionChunk[] = [];
  for await (const chunk of chunks) received.push(chunk);
  return received;
}

async function streamed(upstreamCall: UpstreamCall): Promise<ChatCompletionChunk[]> {
  const reply = await provider.send({ ...upstreamCall, stream: true }, new AbortController().signal);
  if (reply.kind !== 'stream') throw new Error('expected a stream');
  return collect(reply.chunks);
}

async function sentBody(): Promise<Record<string, unknown>> {
  return (await fake.arrived(0)).body as Record<string, unknown>;
}

async function* events(...data: unknown[]): AsyncGenerator<EventSourceMessage> {
  for (const item of data) yield { data: typeof item === 'string' ? item : JSON.stringify(item), event: undefined, id: undefined };
}

describe('GeminiProvider, requests', () => {
  it('posts generateContent with the key, contents and maxOutputTokens = the billed cap', async () => {
    await completion(call());

    const record = await fake.arrived(0);
    expect(record).toMatchObject({ method: 'POST', path: '/v1beta/models/gemini-test:generateContent', headers: { 'x-goog-api-key': 'gemini-test-key' } });
    expect(record.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }], generationConfig: { maxOutputTokens: 321 } });
  });

  it('lifts system and developer messages into systemInstruction, maps roles, prefixes names and drops empty content', async () => {
    await completion(
      call({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi', name: 'alice' },
          { role: 'developer', content: 'Answer in French.' },
          { role: 'assistant', content: 'Bonjour.' },
          { role: 'assistant', content: null },
          { role: 'user', content: null },
          { role: 'user', content: [{ type: 'text', text: 'again' }] },
        ],
      }),
    );

    expect(await sentBody()).toMatchObject({
      systemInstruction: { parts: [{ text: 'Be brief.\n\nAnswer in French.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'alice: hi' }] },
        { role: 'model', parts: [{ text: 'Bonjour.' }] },
        { role: 'user', parts: [{ text: 'again' }] },
      ],
    });
  });

  it('maps sampling, stop, seed, penalties and JSON output into generationConfig', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, additionalProperties: false };

    await completion(
      call({ temperature: 1.5, top_p: 0.9, stop: 'END', seed: 7, presence_penalty: 0.5, frequency_penalty: 0.25, response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } } }),
    );

    expect((await sentBody()).generationConfig).toEqual({
      maxOutputTokens: 321,
      temperature: 1.5,
      topP: 0.9,
      stopSequences: ['END'],
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  it('sends image parts as inlineData or fileData with a mimeType from the extension', async () => {
    const image = (url: string): { type: 'image_url'; image_url: { url: string } } => ({ type: 'image_url', image_url: { url } });

    await completion(
      call({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              image('data:image/webp;base64,UklGRg=='),
              image('https://example.com/cat.PNG?size=large'),
              image('https://example.com/photo'),
            ],
          },
        ],
      }),
    );

    expect((await sentBody()).contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is this?' },
          { inlineData: { mimeType: 'image/webp', data: 'UklGRg==' } },
          { fileData: { fileUri: 'https://example.com/cat.PNG?size=large', mimeType: 'image/png' } },
          { fileData: { fileUri: 'https://example.com/photo', mimeType: 'image/jpeg' } },
        ],
      },
    ]);
  });

  it.each([
    ['auto', { mode: 'AUTO' }],
    ['required', { mode: 'ANY' }],
    ['none', { mode: 'NONE' }],
    [{ type: 'function' as const, function: { name: 'get_weather' } }, { mode: 'ANY', allowedFunctionNames: ['get_weather'] }],
  ] as const)('maps tool_choice %j to functionCallingConfig', async (toolChoice, expected) => {
    await completion(call({ tools: [weatherTool], tool_choice: toolChoice }));

    expect((await sentBody()).toolConfig).toEqual({ functionCallingConfig: expected });
  });
});

describe('GeminiProvider, replies', () => {
  it('maps a JSON answer to a chat.completion', async () => {
    const reply = await completion(call());

    expect(reply).toEqual({
      id: expect.stringMatching(/^fake\d+$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gemini-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'fake gemini reply to: hello there', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 },
    });
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content_filter'],
  ] as const)('maps the finishReason for %s', async (finishReason, expected) => {
    fake.script({ kind: 'reply', finishReason, usage: false });

    const reply = await completion(call());

    expect(reply.choices[0].finish_reason).toBe(expected);
    expect(reply.usage).toBeUndefined();
  });

  it('maps a blocked prompt (no candidates) to empty content filtered, and counts thinking tokens as completion tokens', () => {
    const blocked = geminiCompletion({ promptFeedback: { blockReason: 'SAFETY' } as never, usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 } }, 'gemini-test');
    const thought = geminiCompletion(
      {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Thinking...', thought: true }, { text: '42' }] }, finishReason: 'STOP' as never }],
        usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1, thoughtsTokenCount: 10, totalTokenCount: 15 },
      },
      'gemini-test',
    );

    expect(blocked.choices[0]).toMatchObject({ message: { content: '' }, finish_reason: 'content_filter' });
    expect(blocked.usage).toEqual({ prompt_tokens: 4, completion_tokens: 0, total_tokens: 4 });
    expect(thought.choices[0].message.content).toBe('42');
    expect(thought.usage).toEqual({ prompt_tokens: 4, completion_tokens: 11, total_tokens: 15 });
  });

  it('streams with alt=sse: role first, content deltas, the finish reason, then a usage chunk', async () => {
    const received = await streamed(call());

    expect(fake.requests[0]).toMatchObject({ path: '/v1beta/models/gemini-test:streamGenerateContent', query: { alt: 'sse' } });
    expect(received[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(received.slice(1, -2).map((chunk) => chunk.choices[0].delta.content)).toEqual(['fake ', 'gemini ', 'reply ', 'to: ', 'hello ', 'there']);
    expect(received.at(-2)?.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }]);
    expect(received.at(-1)).toMatchObject({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 } });
    expect(new Set(received.map((chunk) => `${chunk.id} ${chunk.model} ${chunk.created}`)).size).toBe(1);
    expect((await sentBody()).generationConfig).toEqual({ maxOutputTokens: 321 });
  });

  it('ends a stream whose prompt was blocked with content_filter', async () => {
    const received = await collect(geminiChunks(events({ promptFeedback: { blockReason: 'SAFETY' } }), 'gemini-test'));

    expect(received.map((chunk) => chunk.choices[0]?.finish_reason)).toEqual([null, 'content_filter']);
  });
});

describe('GeminiProvider, function calls', () => {
  const history: Partial<ChatRequest> = {
    tools: [weatherTool],
    messages: [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"celsius":21}' },
      { role: 'tool', tool_call_id: 'call_b', content: '12:00' },
    ],
  };

  it('sends declarations, functionCall and functionResponse parts, and maps the functionCall reply back to tool_calls', async () => {
    fake.script({ kind: 'reply', toolCalls: [weather] });

    const reply = await completion(call(history));

    expect(await sentBody()).toMatchObject({
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather now', parametersJsonSchema: weatherTool.function.parameters }] }],
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
        {
          role: 'model',
          parts: [
            { text: 'Checking.' },
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' },
            { functionCall: { name: 'get_time', args: {} }, thoughtSignature: 'skip_thought_signature_validator' },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { celsius: 21 } } }, { functionResponse: { name: 'get_time', response: { content: '12:00' } } }],
        },
      ],
    });
    expect(reply.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { role: 'assistant', content: null, tool_calls: [{ id: expect.stringMatching(CALL_ID), type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(weather.arguments) } }] },
    });
  });

  it('streams function calls as whole tool call deltas with distinct ids', async () => {
    fake.script({ kind: 'reply', text: 'Checking.', toolCalls: [weather, { name: 'get_time', arguments: {} }] });

    const received = await streamed(call(history));

    const toolDeltas = received.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(toolDeltas).toEqual([
      { index: 0, id: expect.stringMatching(CALL_ID), type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(weather.arguments) } },
      { index: 1, id: expect.stringMatching(CALL_ID), type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
    expect(toolDeltas[0].id).not.toBe(toolDeltas[1].id);
    expect(received.at(-2)?.choices[0].finish_reason).toBe('tool_calls');
  });
});

describe('GeminiProvider, failures', () => {
  it.each([
    [429, 'unavailable'],
    [503, 'unavailable'],
    [400, 'bad_response'],
  ] as const)('turns HTTP %i into UpstreamError %s with the status', async (status, kind) => {
    fake.script({ kind: 'status', status });

    await expect(completion(call())).rejects.toMatchObject({ name: 'UpstreamError', provider: 'google', kind, status });
  });

  it('turns a reset into unavailable and a body that is not JSON into bad_response', async () => {
    fake.script({ kind: 'reset' }, { kind: 'malformed-json' });

    await expect(completion(call())).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(completion(call())).rejects.toMatchObject({ kind: 'bad_response' });
  });

  it.each([
    [{ kind: 'cut-stream', afterChunks: 3 }, 'unavailable'],
    [{ kind: 'malformed-chunk' }, 'bad_response'],
    [{ kind: 'missing-done' }, 'unavailable'],
  ] as const)('throws while iterating a stream that goes wrong (%j)', async (behaviour, kind) => {
    fake.script(behaviour);

    const error: unknown = await streamed(call()).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ provider: 'google', kind });
  });

  it.each([
    ['UNAVAILABLE', 'unavailable'],
    ['INVALID_ARGUMENT', 'bad_response'],
  ] as const)('throws on an error object (%s) mid-stream', async (status, kind) => {
    const chunk = { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] } }] };
    const received: ChatCompletionChunk[] = [];

    const consume = async (): Promise<void> => {
      for await (const item of geminiChunks(events(chunk, { error: { code: 503, message: 'overloaded', status } }), 'gemini-test')) received.push(item);
    };

    await expect(consume()).rejects.toMatchObject({ name: 'UpstreamError', kind });
    expect(received.map((item) => item.choices[0].delta)).toEqual([{ role: 'assistant', content: '' }, { content: 'Hel' }]);
  });

  it('rethrows the signal reason when aborted before the first byte, and the fake sees the abort', async () => {
    fake.script({ kind: 'reply', firstByteDelayMs: 5000 });
    const controller = new AbortController();
    const reason = new Error('client gone');

    const pending = completion(call(), controller.signal);
    await fake.arrived(0);
    controller.abort(reason);

    await expect(pending).rejects.toBe(reason);
    expect((await fake.ended(0)).aborted).toBe(true);
  });

  it('rethrows the signal reason when aborted mid-stream, and the fake sees the abort', async () => {
    fake.script({ kind: 'reply', chunkDelayMs: 100 });
    const controller = new AbortController();
    const reason = new Error('client gone');
    const reply = await provider.send(call({}, true), controller.signal);
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    const iterator = reply.chunks[Symbol.asyncIterator]();

    await iterator.next();
    controller.abort(reason);

    // What was already received may still come out; then the abort surfaces.
    await expect(drain(iterator)).rejects.toBe(reason);
    expect((await fake.ended(0)).aborted).toBe(true);
  });
});

async function drain(iterator: AsyncIterator<ChatCompletionChunk>): Promise<void> {
  while (!(await iterator.next()).done);
}
