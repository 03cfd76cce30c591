import { RateLimitError } from '@anthropic-ai/sdk';
import { anthropicClient } from '../../support/anthropic-client';
import { freeChatWorld } from '../../support/free-chat-world';
import { RawConnection, requestHead } from '../../support/raw-http';

const ASK = { model: 'openai/gpt-test-free', max_tokens: 8, messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('/v1/messages shares the free window with chat', () => {
  const world = freeChatWorld({ GW_FREE_TIER_RATE_LIMIT: '2' });

  it('raises RateLimitError once chat and Messages together used the free window', async () => {
    const client = anthropicClient(world.gateway.url);
    await world.client.chat.completions.create({ model: ASK.model, messages: [{ role: 'user', content: 'Hi' }] });
    await client.messages.create(ASK);

    const refused = await client.messages.create(ASK).catch((err: unknown) => err);

    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).error).toMatchObject({ type: 'error', error: { code: 'rate_limit.exceeded' } });
    expect((refused as RateLimitError).headers?.get('x-ratelimit-limit')).toBe('2');
  });
});

describe('count_tokens counts against the unpaid budget', () => {
  // Room for two bodies of this size a minute, not three.
  const world = freeChatWorld({ GW_UNPAID_BODY_BYTES_PER_MIN: '5000' });

  it('answers 429 from the unpaid:bytes window once the bodies counted pass the budget', async () => {
    const client = anthropicClient(world.gateway.url);
    const body = { model: ASK.model, messages: [{ role: 'user' as const, content: 'x'.repeat(2000) }] };
    await client.messages.countTokens(body);
    await client.messages.countTokens(body);

    const refused = await client.messages.countTokens(body).catch((err: unknown) => err);

    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).error).toMatchObject({ type: 'error', error: { code: 'rate_limit.exceeded' } });
  });
});

describe('ping keep-alives on a /v1/messages stream that goes silent', () => {
  const world = freeChatWorld({ GW_CACHE_TTL_SECS: '0', GW_SSE_KEEPALIVE_MS: '50' });

  it("writes Anthropic's ping events in the silences, which the SDK reads past", async () => {
    world.upstreams.openai.script({ kind: 'reply', text: 'one two three', chunkDelayMs: 200 }, { kind: 'reply', text: 'slow but whole', chunkDelayMs: 150 });
    const res = await fetch(`${world.gateway.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...ASK, stream: true }) });
    const blocks = (await res.text()).split('\n\n').filter((block) => block !== '');

    expect(blocks.filter((block) => block === 'event: ping\ndata: {"type": "ping"}').length).toBeGreaterThanOrEqual(3);
    expect(blocks.every((block) => block.startsWith('event: '))).toBe(true);
    expect(blocks.at(-1)).toBe('event: message_stop\ndata: {"type":"message_stop"}');

    const message = await anthropicClient(world.gateway.url).messages.stream(ASK).finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'slow but whole' }]);
  });
});

describe('the /v1/messages body limit', () => {
  const world = freeChatWorld();

  it.each(['/v1/messages', '/v1/messages/count_tokens'])("is chat's 10 MiB on %s: a larger declared body is 413 before it is read, in the envelope with Anthropic's type", async (path) => {
    const MiB = 1024 * 1024;
    const attacker = new RawConnection(world.gateway.url);
    await attacker.write(requestHead('POST', path, { 'content-type': 'application/json', 'content-length': 10 * MiB + 1 }));
    const answer = await attacker.response;
    await attacker.closed;

    expect(answer?.status).toBe(413);
    expect(JSON.parse(answer?.body ?? '{}')).toEqual({
      type: 'error',
      error: { type: 'payload_too_large', message: `request body exceeds ${10 * MiB} bytes`, code: 'request.body_too_large', param: null },
    });
  });
});
