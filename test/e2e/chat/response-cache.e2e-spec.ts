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
