import OpenAI from 'openai';
import type { RunningGateway } from '../../src/gateway';
import { startTestGateway } from '../support/gateway-harness';
import { startUpstreams, writeTestCatalog, type Upstreams } from '../support/upstreams';

const FAMILIES = [
  ['anthropic', 'anthropic/claude-test-free'],
  ['google', 'google/gemini-test-free'],
  ['openai', 'openai/gpt-test-free'],
] as const;

describe('provider quirks, through the openai client', () => {
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
});
