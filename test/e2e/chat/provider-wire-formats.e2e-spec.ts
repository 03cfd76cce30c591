import OpenAI from 'openai';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway } from '../../support/gateway-harness';
import { sseData, startUpstreams, writeTestCatalog, type Upstreams } from '../../support/upstreams';

const FAMILIES = [
  // family, model, the name the provider knows it by, how its fake signs replies
  ['openai', 'openai/gpt-test-free', 'gpt-test', 'openai'],
  ['anthropic', 'anthropic/claude-test-free', 'claude-test', 'anthropic'],
  ['google', 'google/gemini-test-free', 'gemini-test', 'gemini'],
  ['nvidia', 'nvidia/gpt-oss-120b', 'openai/gpt-oss-120b', 'openai'],
] as const;

const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('the chat proxy, each provider family over its native wire format', () => {
  let upstreams: Upstreams;
  let gateway: RunningGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstreams = await startUpstreams();
    gateway = await startTestGateway({ ...upstreams.env, GW_CATALOG_FILE: writeTestCatalog(), GW_FREE_TIER_RATE_LIMIT: '1000', GW_FREE_TIER_GLOBAL_RPM: '1000', GW_CACHE_TTL_SECS: '0' });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'not-needed', maxRetries: 0 });
  });
  afterEach(() => upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await upstreams.close();
  });

  describe.each(FAMILIES)('%s', (family, model, upstreamModel, signature) => {
    const fake = (): Upstreams['openai'] => upstreams[family];

    it('answers JSON through the openai client, in OpenAI shape, with our model id and usage', async () => {
      const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hi' }] });
      expect(completion.object).toBe('chat.completion');
      expect(completion.model).toBe(model);
      expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: `fake ${signature} reply to: Say hi` });
      expect(completion.choices[0].finish_reason).toBe('stop');
      expect(completion.usage).toEqual({ prompt_tokens: 2, completion_tokens: expect.any(Number), total_tokens: expect.any(Number) });
      expect(fake().requests).toHaveLength(1);
      const { path, body } = fake().requests[0];
      expect(JSON.stringify({ path, body })).toContain(upstreamModel);
    });

    it('streams chunks through the openai client: role first, content, finish_reason, usage when asked, then [DONE]', async () => {
      const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Stream please' }], stream: true, stream_options: { include_usage: true } });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks[0].choices[0].delta.role).toBe('assistant');
      expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === model)).toBe(true);
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      expect(text).toBe(`fake ${signature} reply to: Stream please`);
      expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
      expect(chunks[chunks.length - 1]).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) } });
    });

    it('ends the raw stream with data: [DONE] and leaves usage out unless asked', async () => {
      const res = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'raw' }], stream: true }),
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const data = await sseData(res);
      expect(data[data.length - 1]).toBe('[DONE]');
      expect(data.slice(0, -1).some((d) => 'usage' in (JSON.parse(d) as object) && (JSON.parse(d) as { choices: unknown[] }).choices.length === 0)).toBe(false);
    });

    it('round-trips a tool call: the upstream gets the tools in its own format, the client gets tool_calls back and can answer them', async () => {
      fake().script({ kind: 'reply', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
      const first = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [WEATHER_TOOL] });
      const call = first.choices[0].message.tool_calls?.[0];
      expect(first.choices[0].finish_reason).toBe('tool_calls');
      expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
      expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ city: 'Paris' });

      const second = await client.chat.completions.create({
        model,
        tools: [WEATHER_TOOL],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: first.choices[0].message.tool_calls },
          { role: 'tool', tool_call_id: call?.id as string, content: '{"temperature_c": 18}' },
        ],
      });
      expect(second.choices[0].message.content).toContain('reply to');
      const sent = JSON.stringify(fake().requests[1].body);
      if (family === 'anthropic') expect(sent).toMatch(/"tool_use".*"tool_result"/);
      else if (family === 'google') expect(sent).toMatch(/"functionCall".*"functionResponse"/);
      else expect(sent).toMatch(/"tool_calls".*"tool_call_id"/);
    });

    it('streams a tool call as tool_call deltas the openai client reassembles', async () => {
      fake().script({ kind: 'reply', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
      const stream = client.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [WEATHER_TOOL] });
      const final = await stream.finalChatCompletion();
      expect(final.choices[0].message.tool_calls?.[0].function).toEqual({ name: 'get_weather', arguments: JSON.stringify({ city: 'Oslo' }) });
    });
  });

  it.each([
    ['anthropic', 'anthropic/claude-test-free', /"type":"image".*"base64"/],
    ['google', 'google/gemini-test-free', /"inlineData":\{"mimeType":"image\/png"/],
    ['openai', 'openai/gpt-test-free', /"image_url"/],
  ] as const)('sends an image part to the %s vision model in its native form', async (family, model, native) => {
    await client.chat.completions.create({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(JSON.stringify(upstreams[family].requests[0].body)).toMatch(native);
  });

  it('maps developer and system turns, null content, and sends the billed cap as max_tokens', async () => {
    await client.chat.completions.create({
      model: 'anthropic/claude-test-free',
      max_tokens: 50_000,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Answer in French.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: null },
        { role: 'user', content: 'Again' },
      ],
    });
    const body = upstreams.anthropic.requests[0].body as { system: unknown; max_tokens: number; messages: Array<{ role: string }> };
    expect(JSON.stringify(body.system)).toContain('Be brief.');
    expect(JSON.stringify(body.system)).toContain('Answer in French.');
    expect(body.messages.every((m) => m.role === 'user' || m.role === 'assistant')).toBe(true);
    expect(body.max_tokens).toBe(4096); // the test model's max output, below the 8,192 ceiling and the 50,000 asked
  });
});
