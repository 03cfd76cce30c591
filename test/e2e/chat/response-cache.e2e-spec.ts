import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { freeChatWorld } from '../../support/free-chat-world';
import { sseData } from '../../support/upstreams';

describe('the response cache', () => {
  const world = freeChatWorld();
  const model = 'nvidia/gpt-oss-120b';

  const debug = { headers: { 'x-gw-debug': 'true' } };

  it('answers a repeated request from the cache without a new upstream call', async () => {
    const messages = [{ role: 'user' as const, content: 'cache me' }];
    const first = await world.client.chat.completions.create({ model, messages }, debug).withResponse();
    expect(first.response.headers.get('x-gw-cache')).toBe('miss');
    await new Promise((resolve) => setTimeout(resolve, 50)); // the cache write runs in the background
    const second = await world.client.chat.completions.create({ model, messages }, debug).withResponse();
    expect(second.response.headers.get('x-gw-cache')).toBe('hit');
    expect(second.data).toEqual(first.data);
    expect(world.upstreams.nvidia.requests).toHaveLength(1);
  });

  it('serves a cached answer as a stream when the next request streams, and a streamed answer as JSON', async () => {
    const messages = [{ role: 'user' as const, content: 'stream me later' }];
    await world.client.chat.completions.create({ model, messages });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const res = await fetch(`${world.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-debug': 'true' },
      body: JSON.stringify({ model, messages, stream: true }),
    });
    expect(res.headers.get('x-gw-cache')).toBe('hit');
    const data = await sseData(res);
    expect(data[data.length - 1]).toBe('[DONE]');
    expect(
      data
        .slice(0, -1)
        .map((d) => (JSON.parse(d) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
        .join(''),
    ).toBe('fake openai reply to: stream me later');

    const streamedFirst = [{ role: 'user' as const, content: 'first streamed' }];
    for await (const chunk of await world.client.chat.completions.create({ model, messages: streamedFirst, stream: true })) void chunk;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const json = await world.client.chat.completions.create({ model, messages: streamedFirst }, debug).withResponse();
    expect(json.response.headers.get('x-gw-cache')).toBe('hit');
    expect(json.data.choices[0].message.content).toBe('fake openai reply to: first streamed');
    expect(world.upstreams.nvidia.requests).toHaveLength(2);
  });

  it('keys on every field that changes the answer', async () => {
    const messages = [{ role: 'user' as const, content: 'vary me' }];
    await world.client.chat.completions.create({ model, messages });
    for (const variant of [{ temperature: 0.5 }, { top_p: 0.5 }, { max_tokens: 10 }, { response_format: { type: 'json_object' as const } }, { stop: ['x'] }, { seed: 7 }]) {
      await world.client.chat.completions.create({ model, messages, ...variant });
    }
    expect(world.upstreams.nvidia.requests).toHaveLength(7);
  });

  it('never caches errors or partial streams', async () => {
    const messages = [{ role: 'user' as const, content: 'flaky' }];
    world.upstreams.nvidia.script({ kind: 'cut-stream', afterChunks: 2 });
    const cut = await fetch(`${world.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, messages, stream: true }) });
    expect(await sseData(cut)).not.toContain('[DONE]');
    world.upstreams.nvidia.script({ kind: 'status', status: 503 });
    await expect(world.client.chat.completions.create({ model, messages })).rejects.toMatchObject({ status: 503 });
    const fine = await world.client.chat.completions.create({ model, messages }, debug).withResponse();
    expect(fine.response.headers.get('x-gw-cache')).toBe('miss');
    expect(world.upstreams.nvidia.requests).toHaveLength(3);
  });

  it('echoes a valid X-Session-Id and ignores an invalid one', async () => {
    const send = (id: string): Promise<Response> =>
      fetch(`${world.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': id },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'session' }] }),
      });
    expect((await send('agent-42_run-7')).headers.get('x-session-id')).toBe('agent-42_run-7');
    expect((await send('not valid!')).headers.get('x-session-id')).toBeNull();
    expect((await send('x'.repeat(129))).headers.get('x-session-id')).toBeNull();
  });
});

const tool = (name: string) => ({ type: 'function' as const, function: { name, parameters: { type: 'object', properties: { symbol: { type: 'string' } } } } });

describe('the response cache and market-data tools (spec 1.7)', () => {
  const world = freeChatWorld();
  const model = 'openai/gpt-test-free';
  const debug = { headers: { 'x-gw-debug': 'true' } };

  /** The X-Gw-Cache header of two identical requests, the second sent once the first's cache write had time to land. */
  async function twice(body: ChatCompletionCreateParamsNonStreaming): Promise<Array<string | null>> {
    const first = await world.client.chat.completions.create(body, debug).withResponse();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the cache write runs in the background
    const second = await world.client.chat.completions.create(body, debug).withResponse();
    return [first.response.headers.get('x-gw-cache'), second.response.headers.get('x-gw-cache')];
  }

  it('caches a request whose tools are not about markets', async () => {
    expect(await twice({ model, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [tool('get_weather')] })).toEqual(['miss', 'hit']);
    expect(world.upstreams.openai.requests).toHaveLength(1);
  });

  it.each(['token-price', 'get_stock_quote', 'fetchTicker', 'market_summary'])('never caches a request offering %s', async (name) => {
    expect(await twice({ model, messages: [{ role: 'user', content: `Use ${name} for SOL` }], tools: [tool('get_weather'), tool(name)] })).toEqual(['miss', 'miss']);
    expect(world.upstreams.openai.requests).toHaveLength(2);
  });

  it("never caches a conversation that carries the price tool's answer", async () => {
    const messages: ChatCompletionCreateParamsNonStreaming['messages'] = [
      { role: 'user', content: 'What is SOL worth?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'token-price', arguments: '{"symbol":"SOL"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"usd_price":151.2}' },
    ];

    expect(await twice({ model, messages })).toEqual(['miss', 'miss']);
    expect(world.upstreams.openai.requests).toHaveLength(2);
  });
});
