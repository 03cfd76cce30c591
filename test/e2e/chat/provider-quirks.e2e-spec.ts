import OpenAI from 'openai';
import type { RunningGateway } from '../../../src/gateway';
import type { Fake } from '../../fakes/fake-server';
import { startTestGateway } from '../../support/gateway-harness';
import { startUpstreams, writeTestCatalog, type Upstreams } from '../../support/upstreams';

const DEBUG = { headers: { 'X-Gw-Debug': 'true' } };

const FAMILIES = [
  ['anthropic', 'anthropic/claude-test-free'],
  ['google', 'google/gemini-test-free'],
  ['openai', 'openai/gpt-test-free'],
] as const;

describe('provider quirks, through the openai client', () => {
  let upstreams: Upstreams;
  let deepseek: Fake;
  let gateway: RunningGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstreams = await startUpstreams();
    deepseek = upstreams.deepseek;
    const catalog = writeTestCatalog([{ id: 'openai/o4-mini-test-free', upstream_model: 'o4-mini', reasoning: true, vision: false }]);
    const env = upstreams.env;
    gateway = await startTestGateway({ ...env, GW_CATALOG_FILE: catalog, GW_FREE_TIER_RATE_LIMIT: '1000', GW_FREE_TIER_GLOBAL_RPM: '1000', GW_CACHE_TTL_SECS: '0' });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'not-needed', maxRetries: 0 });
  });
  afterEach(() => {
    upstreams.resetAll();
  });
  afterAll(async () => {
    await gateway.close();
    await upstreams.close();
  });

  describe.each(FAMILIES)('%s, a streamed tool call without arguments', (family, model) => {
    it('reaches the client as arguments "{}", so the tool runner calls the tool once and finishes', async () => {
      upstreams[family].script({ kind: 'reply', toolCalls: [{ name: 'get_time', arguments: {} }] }, { kind: 'reply', text: 'It is noon.' });
      const calls: unknown[] = [];

      const runner = client.chat.completions.runTools({
        model,
        stream: true,
        messages: [{ role: 'user', content: 'What time is it?' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_time',
              description: 'The time now',
              parameters: { type: 'object', properties: {} },
              parse: JSON.parse,
              function: (args: unknown) => {
                calls.push(args);
                return { time: '12:00' };
              },
            },
          },
        ],
      });

      expect(await runner.finalContent()).toBe('It is noon.');
      expect(calls).toEqual([{}]);
      const [firstCall] = runner.messages.flatMap((message) => ('tool_calls' in message ? (message.tool_calls ?? []) : []));
      expect(firstCall).toMatchObject({ function: { name: 'get_time', arguments: '{}' } });
      expect(upstreams[family].requests).toHaveLength(2);
    });
  });

  describe.each(FAMILIES)('%s, a conversation of system text alone', (family, model) => {
    const messages = [
      { role: 'system' as const, content: 'Reply with one word.' },
      { role: 'developer' as const, content: 'Name a colour.' },
    ];

    it('is answered as JSON', async () => {
      const completion = await client.chat.completions.create({ model, messages });

      expect(completion.choices[0].message.content).toMatch(/^fake \w+ reply to:/);
      const body = upstreams[family].requests[0].body as Record<string, unknown>;
      if (family === 'anthropic') expect(body).toMatchObject({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply with one word.\n\nName a colour.' }] }] });
      if (family === 'google') expect(body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Reply with one word.\n\nName a colour.' }] }] });
      // OpenAI answers system messages alone as they are.
      if (family === 'openai') expect(body).toMatchObject({ messages: [{ role: 'system' }, { role: 'developer' }] });
      expect(body).not.toHaveProperty('system');
      expect(body).not.toHaveProperty('systemInstruction');
    });

    it('is answered as a stream', async () => {
      const stream = await client.chat.completions.create({ model, messages, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';

      expect(text).toMatch(/^fake \w+ reply to:/);
    });
  });

  describe('DeepSeek, content as text parts (LangChain, Cline, OpenHands)', () => {
    const messages = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: '<task>Rename it</task>' },
          { type: 'text' as const, text: '<env>linux</env>' },
        ],
      },
    ];

    it('is answered, the parts reaching DeepSeek joined as the string it requires, and the debug header says so', async () => {
      const { data, response } = await client.chat.completions.create({ model: 'deepseek/deepseek-test-free', messages }, DEBUG).withResponse();

      expect(data.choices[0].message.content).toMatch(/^fake deepseek reply to:/);
      expect((deepseek.requests[0].body as { messages: unknown }).messages).toEqual([{ role: 'user', content: '<task>Rename it</task>\n<env>linux</env>' }]);
      expect(response.headers.get('x-gw-params-rewritten')).toBe('messages[].content');
    });

    it('is answered as a stream', async () => {
      const stream = await client.chat.completions.create({ model: 'deepseek/deepseek-test-free', messages, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';

      expect(text).toMatch(/^fake deepseek reply to:/);
    });
  });

  describe('an OpenAI reasoning model, asked with sampling settings', () => {
    it('is answered: the settings it refuses are dropped and listed, reasoning_effort goes through', async () => {
      const { data, response } = await client.chat.completions
        .create({ model: 'openai/o4-mini-test-free', messages: [{ role: 'user', content: 'Prove it.' }], temperature: 0.2, top_p: 0.9, reasoning_effort: 'high' }, DEBUG)
        .withResponse();

      expect(data.choices[0].message.content).toMatch(/^fake openai reply to:/);
      const body = upstreams.openai.requests[0].body as Record<string, unknown>;
      expect(body).toMatchObject({ model: 'o4-mini', reasoning_effort: 'high' });
      expect(body).not.toHaveProperty('temperature');
      expect(body).not.toHaveProperty('top_p');
      expect(response.headers.get('x-gw-params-dropped')).toBe('temperature, top_p');
    });

    it('without X-Gw-Debug, lists nothing', async () => {
      const { response } = await client.chat.completions.create({ model: 'openai/o4-mini-test-free', messages: [{ role: 'user', content: 'Prove it.' }], temperature: 0.2 }).withResponse();

      expect(response.headers.get('x-gw-params-dropped')).toBeNull();
    });
  });

  describe('settings forwarded where the provider has them', () => {
    it('logprobs reach OpenAI and come back, as JSON and as a stream', async () => {
      const completion = await client.chat.completions.create({ model: 'openai/gpt-test-free', messages: [{ role: 'user', content: 'Say hi.' }], logprobs: true, top_logprobs: 2 });
      expect(completion.choices[0].logprobs?.content?.map((entry) => entry.token).join('')).toBe(completion.choices[0].message.content);

      const stream = await client.chat.completions.create({ model: 'openai/gpt-test-free', messages: [{ role: 'user', content: 'Say hi.' }], logprobs: true, stream: true });
      let tokens = 0;
      for await (const chunk of stream) tokens += chunk.choices[0]?.logprobs?.content?.length ?? 0;
      expect(tokens).toBeGreaterThan(0);
    });

    it('response_format json_schema reaches Anthropic as a forced tool and comes back as JSON content', async () => {
      upstreams.anthropic.script({ kind: 'reply', toolCalls: [{ name: 'city', arguments: { name: 'Lima', population: 10 } }] });
      const schema = { type: 'object', properties: { name: { type: 'string' }, population: { type: 'number' } }, required: ['name'] };

      const completion = await client.chat.completions.create({
        model: 'anthropic/claude-test-free',
        messages: [{ role: 'user', content: 'Name a city.' }],
        response_format: { type: 'json_schema', json_schema: { name: 'city', schema } },
        user: 'user-7',
      });

      expect(JSON.parse(completion.choices[0].message.content ?? '')).toEqual({ name: 'Lima', population: 10 });
      expect(completion.choices[0].finish_reason).toBe('stop');
      expect(upstreams.anthropic.requests[0].body).toMatchObject({ tool_choice: { type: 'tool', name: 'city' }, metadata: { user_id: 'user-7' } });
    });
  });

  describe('a tool schema nested 2,000 deep (as deep as the client can serialise; raw bodies 5,000 deep are in adversarial-bodies)', () => {
    it('is a 400 bad_request, not a 500', async () => {
      let parameters: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 2000; i++) parameters = { type: 'object', properties: { a: parameters } };

      const refused = client.chat.completions.create({
        model: 'openai/gpt-test-free',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'deep', parameters } }],
      });

      await expect(refused).rejects.toMatchObject({ status: 400, error: { type: 'bad_request' } });
    });
  });
});
