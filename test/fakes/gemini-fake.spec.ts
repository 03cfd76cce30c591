import { ApiError, GoogleGenAI, type GenerateContentParameters, type GenerateContentResponse } from '@google/genai';
import { expectAbortRecorded, useFake, weather } from '../support/spec-fakes';
import type { Fake } from './fake-server';
import { startGeminiFake } from './gemini-fake';

const request: GenerateContentParameters = {
  model: 'gemini-fake',
  contents: [{ role: 'user', parts: [{ text: 'hello there' }] }],
  config: { systemInstruction: 'be brief' },
};

let fake: Fake;
let client: GoogleGenAI;

useFake(startGeminiFake, (started) => {
  fake = started;
  // The SDK adds /v1beta/models/{model}:... to the origin; the gateway gets fake.url, which ends in /v1beta.
  client = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: fake.origin } });
});

async function streamChunks(): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of await client.models.generateContentStream(request)) chunks.push(chunk);
  return chunks;
}

/** Reads the parts directly: the SDK's `text` getter warns about function-call parts. */
function textOf(chunks: GenerateContentResponse[]): string {
  return chunks
    .flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? [])
    .map((part) => part.text ?? '')
    .join('');
}

function post(path: string, headers: Record<string, string> = { 'x-goog-api-key': 'k' }): Promise<Response> {
  return fetch(`${fake.url}/models/gemini-fake:${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ contents: request.contents }) });
}

describe('Gemini fake, replies', () => {
  it('answers generateContent with a candidate, finishReason and usageMetadata', async () => {
    const response = await client.models.generateContent(request);

    expect(response.text).toBe('fake gemini reply to: hello there');
    expect(response.candidates?.[0]).toMatchObject({ content: { role: 'model' }, finishReason: 'STOP' });
    expect(response.usageMetadata).toEqual({ promptTokenCount: 5, candidatesTokenCount: 6, totalTokenCount: 11 });
    expect(response.modelVersion).toBe('gemini-fake');
    expect(fake.requests[0]).toMatchObject({ path: '/v1beta/models/gemini-fake:generateContent', headers: { 'x-goog-api-key': 'k' } });
  });

  it('streams with alt=sse, CRLF-separated data lines, finishReason and usage on the last chunk and no terminator', async () => {
    const chunks = await streamChunks();
    const raw = await (await post('streamGenerateContent?alt=sse')).text();

    expect(fake.requests[0]).toMatchObject({ path: '/v1beta/models/gemini-fake:streamGenerateContent', query: { alt: 'sse' } });
    expect(textOf(chunks)).toBe('fake gemini reply to: hello there');
    expect(chunks.slice(0, -1).every((chunk) => chunk.candidates?.[0]?.finishReason === undefined && chunk.usageMetadata === undefined)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { totalTokenCount: 11 } });
    expect(
      raw
        .split('\r\n\r\n')
        .filter(Boolean)
        .every((event) => event.startsWith('data: {')),
    ).toBe(true);
  });

  it('returns function calls in JSON', async () => {
    fake.script({ kind: 'reply', toolCalls: [weather] });

    const response = await client.models.generateContent(request);

    expect(response.functionCalls).toEqual([{ name: 'get_weather', args: weather.arguments }]);
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('streams function calls after the text', async () => {
    fake.script({ kind: 'reply', text: 'Checking.', toolCalls: [weather, { name: 'get_time', arguments: {} }] });

    const chunks = await streamChunks();

    expect(textOf(chunks)).toBe('Checking.');
    expect(chunks.at(-1)?.functionCalls).toEqual([
      { name: 'get_weather', args: weather.arguments },
      { name: 'get_time', args: {} },
    ]);
  });

  it('leaves usage out and reports the finish reason it is given', async () => {
    fake.script({ kind: 'reply', usage: false, finishReason: 'length' }, { kind: 'reply', usage: false });

    const response = await client.models.generateContent(request);
    const chunks = await streamChunks();

    expect(response.usageMetadata).toBeUndefined();
    expect(response.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(chunks.some((chunk) => chunk.usageMetadata)).toBe(false);
  });

  it('accepts the key as a query parameter', async () => {
    const response = await post('generateContent?key=k', {});

    expect(response.status).toBe(200);
  });
});

describe('Gemini fake, faults', () => {
  it.each([
    [429, '7', 'RESOURCE_EXHAUSTED'],
    [429, undefined, 'RESOURCE_EXHAUSTED'],
    [400, undefined, 'INVALID_ARGUMENT'],
    [503, undefined, 'UNAVAILABLE'],
  ])('answers status %i (Retry-After %s) with the Gemini error body', async (status, retryAfter, statusName) => {
    fake.script({ kind: 'status', status, retryAfter }, { kind: 'status', status, retryAfter });

    const error: unknown = await client.models.generateContent(request).catch((caught: unknown) => caught);
    const raw = await post('generateContent');

    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(status);
    const body = { error: { code: status, message: `fake gemini error ${status}`, status: statusName } };
    expect(JSON.parse((error as ApiError).message)).toEqual(body);
    expect(raw.headers.get('retry-after') ?? undefined).toBe(retryAfter);
    expect(await raw.json()).toEqual(body);
  });

  it('fails once with 500 and then answers', async () => {
    fake.script({ kind: 'status', status: 500 }, { kind: 'reply' });

    await expect(client.models.generateContent(request)).rejects.toMatchObject({ status: 500 });
    await expect(client.models.generateContent(request)).resolves.toMatchObject({ responseId: expect.any(String) });
  });

  it('resets the connection', async () => {
    fake.script({ kind: 'reset' });

    // Node's fetch error comes from another realm than Jest's, so the SDK rewraps it as Error('{}').
    await expect(client.models.generateContent(request)).rejects.toThrow();
    expect((await fake.ended(0)).aborted).toBe(false);
  });

  it('cuts a stream after the given number of chunks', async () => {
    fake.script({ kind: 'cut-stream', afterChunks: 2 });
    const received: GenerateContentResponse[] = [];

    const consume = async (): Promise<void> => {
      for await (const chunk of await client.models.generateContentStream(request)) received.push(chunk);
    };

    await expect(consume()).rejects.toThrow('terminated');
    expect(textOf(received)).toBe('fake gemini ');
  });

  it('sends a chunk that is not JSON', async () => {
    fake.script({ kind: 'malformed-chunk' });

    await expect(streamChunks()).rejects.toThrow(/JSON/);
  });

  it('ends a stream mid-candidate, without the chunk that carries finishReason', async () => {
    fake.script({ kind: 'missing-done' });

    const chunks = await streamChunks();

    expect(textOf(chunks)).toBe('fake gemini reply to: hello ');
    expect(chunks.some((chunk) => chunk.candidates?.[0]?.finishReason)).toBe(false);
  });

  it('answers 200 with a body that is not JSON', async () => {
    fake.script({ kind: 'malformed-json' });

    await expect(client.models.generateContent(request)).rejects.toThrow(/JSON/);
  });

  it('records a client abort between stream chunks', async () => {
    fake.script({ kind: 'reply', chunkDelayMs: 5000 });
    const controller = new AbortController();

    const stream = await client.models.generateContentStream({ ...request, config: { ...request.config, abortSignal: controller.signal } });
    const abortedAt = Date.now();
    controller.abort();

    await expect(stream.next()).rejects.toThrow();
    await expectAbortRecorded(fake, abortedAt);
  });

  it('refuses a request without an API key, or a stream without alt=sse', async () => {
    const keyless = await post('generateContent', {});
    const notSse = await post('streamGenerateContent');

    expect([keyless.status, await keyless.json()]).toEqual([400, { error: { code: 400, message: 'invalid API key', status: 'INVALID_ARGUMENT' } }]);
    expect(notSse.status).toBe(400);
  });

  it('refuses an empty contents list as the real API does', async () => {
    // The SDK refuses an empty list before sending it; the gateway speaks REST, so the fake is asked directly.
    const refused = await fetch(`${fake.url}/models/gemini-fake:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({ contents: [], systemInstruction: { parts: [{ text: 'be brief' }] } }),
    });

    expect([refused.status, await refused.json()]).toEqual([400, { error: { code: 400, message: '* GenerateContentRequest.contents: contents is not specified\n', status: 'INVALID_ARGUMENT' } }]);
  });
});
