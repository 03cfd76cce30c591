import { freeChatWorld } from '../../support/free-chat-world';

const KEEP_ALIVE = ': keep-alive\n\n';

describe('SSE keep-alives on a stream that goes silent', () => {
  // 50 ms stands in for the 15 s default; the fake's pauses between events are four times that.
  const world = freeChatWorld({ GW_CACHE_TTL_SECS: '0', GW_SSE_KEEPALIVE_MS: '50' });
  const model = 'openai/gpt-test-free';

  const streamed = (): Promise<Response> =>
    fetch(`${world.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'think slowly' }], stream: true }),
    });

  it('writes `: keep-alive` comments between the events of an upstream that stalls mid-stream, and ends with [DONE]', async () => {
    world.upstreams.openai.script({ kind: 'reply', text: 'one two three', chunkDelayMs: 200 });

    const body = await (await streamed()).text();

    const blocks = body
      .split('\n\n')
      .filter((block) => block !== '')
      .map((block) => `${block}\n\n`);
    expect(blocks.filter((block) => block === KEEP_ALIVE).length).toBeGreaterThanOrEqual(3);
    expect(blocks.every((block) => block === KEEP_ALIVE || block.startsWith('data: '))).toBe(true);
    // Only in silences: never before the first event, and the stream still ends as OpenAI's does.
    expect(blocks[0]).toMatch(/^data: /);
    expect(blocks.at(-1)).toBe('data: [DONE]\n\n');
  });

  it('does not disturb the openai client, which reads the answer whole', async () => {
    world.upstreams.openai.script({ kind: 'reply', text: 'slow but whole', chunkDelayMs: 150 });

    let text = '';
    for await (const chunk of await world.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'go' }], stream: true })) text += chunk.choices[0]?.delta.content ?? '';

    expect(text).toBe('slow but whole');
  });
});
