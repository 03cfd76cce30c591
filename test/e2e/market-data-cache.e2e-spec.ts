import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { freeChatWorld } from '../support/free-chat-world';

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
