import type { EventSourceMessage } from 'eventsource-parser';
import { llmProviderFailuresContract } from '../../../../test/contracts/llm-provider-failures.contract';
import { startGeminiFake } from '../../../../test/fakes/gemini-fake';
import { adapterOnFake, collect, type AdapterSetup } from '../../../../test/support/adapter-on-fake';
import { weather } from '../../../../test/support/spec-fakes';
import type { ChatRequest } from '../../../modules/providers/domain/chat-request';
import type { ChatCompletionChunk } from '../../../modules/providers/domain/chat-completion';
import { GeminiProvider } from './gemini-provider';
import { geminiCompletion } from './gemini-response';
import { geminiChunks } from './gemini-stream';

const weatherTool = { type: 'function' as const, function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const CALL_ID = /^call_[0-9a-f]{24}$/;

const gemini: AdapterSetup<GeminiProvider> = {
  startFake: startGeminiFake,
  apiKey: 'gemini-test-key',
  adapter: (endpoint, http) => new GeminiProvider(endpoint, http),
  upstreamModel: 'gemini-test',
};
const upstream = adapterOnFake(gemini);
const { call, completion, chunks, sentBody } = upstream;

async function* events(...data: unknown[]): AsyncGenerator<EventSourceMessage> {
  for (const item of data) yield { data: typeof item === 'string' ? item : JSON.stringify(item), event: undefined, id: undefined };
}

describe('GeminiProvider, requests', () => {
  it('posts generateContent with the key, contents and maxOutputTokens = the billed cap', async () => {
    await completion(call());

    const record = await upstream.fake.arrived(0);
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

  it('sends reasoning_effort as a thinking level to a reasoning model only, and drops what Gemini has no field for', async () => {
    const request = call({ reasoning_effort: 'medium', logprobs: true, parallel_tool_calls: false, user: 'u', metadata: { a: 'b' }, service_tier: 'auto' });
    await completion({ ...request, reasoning: true });

    expect((await sentBody()).generationConfig).toEqual({ maxOutputTokens: 321, thinkingConfig: { thinkingLevel: 'HIGH' } });
    expect(upstream.provider.adjustments({ ...request, reasoning: true })).toEqual({
      dropped: ['parallel_tool_calls', 'logprobs', 'user', 'metadata', 'service_tier'],
      rewritten: ['reasoning_effort'],
    });
    expect(upstream.provider.adjustments(request).dropped).toContain('reasoning_effort');
  });

  it('sends image parts as inlineData or fileData with a mimeType from the extension', async () => {
    const image = (url: string): { type: 'image_url'; image_url: { url: string } } => ({ type: 'image_url', image_url: { url } });

    await completion(
      call({
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', text: 'What is this?' }, image('data:image/webp;base64,UklGRg=='), image('https://example.com/cat.PNG?size=large'), image('https://example.com/photo')],
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
    [
      { type: 'function' as const, function: { name: 'get_weather' } },
      { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    ],
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
    upstream.fake.script({ kind: 'reply', finishReason, usage: false });

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
    const received = await chunks(call());

    expect(upstream.fake.requests[0]).toMatchObject({ path: '/v1beta/models/gemini-test:streamGenerateContent', query: { alt: 'sse' } });
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
    upstream.fake.script({ kind: 'reply', toolCalls: [weather] });

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
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: expect.stringMatching(CALL_ID), type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(weather.arguments) } }],
      },
    });
  });

  it('streams function calls as whole tool call deltas with distinct ids', async () => {
    upstream.fake.script({ kind: 'reply', text: 'Checking.', toolCalls: [weather, { name: 'get_time', arguments: {} }] });

    const received = await chunks(call(history));

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
  llmProviderFailuresContract({ ...gemini, provider: 'google', cutStreamAfter: 3 });

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
});
