import { MAX_WAITING_REQUESTS } from '../../../src/http/connection-turns';
import { freeChatWorld } from '../../support/free-chat-world';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { RawConnection, requestFrom, requestHead } from '../../support/raw-http';
import { sseData } from '../../support/upstreams';

const CHAT = JSON.stringify({ model: 'openai/gpt-test-free', messages: [{ role: 'user', content: 'hi' }] });
const chatRequest = requestHead('POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': Buffer.byteLength(CHAT) }) + CHAT;

/**
 * One connection is one request at a time: Node's server parsed pipelined requests and handed them
 * all to the app at once, so one connection ran any number concurrently, and a client that never
 * read had the gateway buffer every answer. Now a connection's next request is served once the one
 * before has answered, at most 16 wait, and an answer the client stops taking for
 * GW_SEND_TIMEOUT_SECS closes the connection.
 */
describe('the open edge: requests on one connection', () => {
  const world = freeChatWorld({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_CACHE_TTL_SECS: '0', GW_SEND_TIMEOUT_SECS: '1' });

  const rejections = async (reason: string): Promise<number> => {
    const metrics = await requestFrom('127.0.0.9', `${world.gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    return Number(new RegExp(`gw_http_rejections_total\\{reason="${reason}"\\} (\\d+)`).exec(metrics.body)?.[1] ?? 0);
  };

  it('serves pipelined requests one at a time, in order, while another client is served', async () => {
    const { openai } = world.upstreams;
    openai.setDefault({ kind: 'reply', firstByteDelayMs: 20 });
    const count = 1 + MAX_WAITING_REQUESTS;
    const pipeliner = new RawConnection(world.gateway.url);
    await pipeliner.write(chatRequest.repeat(count));
    await openai.arrived(0);
    expect((await requestFrom('127.0.0.3', `${world.gateway.url}/v1/models`)).status).toBe(200);
    const answers = await pipeliner.answers(count);
    expect(answers.map((answer) => answer.status)).toEqual(Array(count).fill(200));
    // The provider saw each request only once the one before it had ended: never two at once.
    expect(openai.requests).toHaveLength(count);
    for (let i = 1; i < count; i++) expect(openai.requests[i].receivedAt).toBeGreaterThanOrEqual(openai.requests[i - 1].endedAt ?? Infinity);
    pipeliner.destroy();
  });

  it(`closes a connection with more than ${MAX_WAITING_REQUESTS} requests waiting, and counts it`, async () => {
    const { openai } = world.upstreams;
    openai.setDefault({ kind: 'hang' });
    const before = await rejections('pipelined_requests');
    const pipeliner = new RawConnection(world.gateway.url);
    await pipeliner.write(chatRequest.repeat(40));
    await pipeliner.closed;
    expect(pipeliner.received).toBe('');
    expect(await rejections('pipelined_requests')).toBe(before + 1);
    expect(openai.requests.length).toBeLessThanOrEqual(1);
    expect((await requestFrom('127.0.0.3', `${world.gateway.url}/v1/models`)).status).toBe(200);
  });

  it('closes the connection of a client that stops taking its answer, after GW_SEND_TIMEOUT_SECS', async () => {
    const { openai } = world.upstreams;
    // An answer far larger than what the kernel's buffers on both ends hold.
    const text = 'x'.repeat(32 * 1024 * 1024);
    openai.setDefault({ kind: 'reply', text });
    const before = await rejections('send_timeout');
    const stalled = new RawConnection(world.gateway.url);
    stalled.socket.pause();
    await stalled.write(chatRequest);
    await openai.ended(0);
    while ((await rejections('send_timeout')) === before) await new Promise((resolve) => setTimeout(resolve, 200));
    // What the kernel had buffered still arrives; the rest never does, and the connection is closed.
    stalled.socket.resume();
    await stalled.closed;
    expect(await stalled.response).toBeNull();
    expect(stalled.received.length).toBeGreaterThan(0);
    expect(stalled.received.length).toBeLessThan(text.length);
  });

  it('leaves alone a stream that lasts longer than GW_SEND_TIMEOUT_SECS while it is read', async () => {
    world.upstreams.openai.setDefault({ kind: 'reply', text: 'one two three four five six', chunkDelayMs: 300 });
    const res = await fetch(`${world.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...JSON.parse(CHAT), stream: true }),
    });
    expect(res.status).toBe(200);
    const data = await sseData(res);
    expect(data.at(-1)).toBe('[DONE]');
  });
});
