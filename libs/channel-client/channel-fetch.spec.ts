import { Keypair } from '@solana/web3.js';
import { wrapFetchWithChannel, type ChannelFetchOptions } from './channel-fetch';
import { closeChannel, ChannelRouteError } from './gateway-routes';
import { ChannelSigner } from './signer';
import { FakeChannelGateway } from './testing/fake-gateway';

const signer = new ChannelSigner(Keypair.generate());
let gateway: FakeChannelGateway;

beforeEach(async () => {
  gateway = await FakeChannelGateway.start(signer.publicKey);
});
afterEach(() => gateway.stop());

function client(options: Partial<ChannelFetchOptions> = {}) {
  return wrapFetchWithChannel(fetch, { channelId: gateway.channelId, signer, gateway: gateway.url, lastCumulative: 0n, ...options });
}

function chat(channelFetch: typeof fetch, body: string | Uint8Array | ArrayBuffer = '{"model":"auto"}') {
  return channelFetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

describe('wrapFetchWithChannel', () => {
  it('answers a 402 with a voucher of last cumulative plus the quote, and counts it drawn on 2xx', async () => {
    const channelFetch = client();
    expect((await chat(channelFetch)).status).toBe(200);
    expect((await chat(channelFetch)).status).toBe(200);
    expect(channelFetch.lastCumulative()).toBe(2n * gateway.quote);
    expect(gateway.lastCumulative).toBe(2n * gateway.quote);
    expect(gateway.served.map(({ paid, status, nonce }) => [paid, status, nonce])).toEqual([
      [false, 402, undefined],
      [true, 200, 0],
      [false, 402, undefined],
      [true, 200, 1],
    ]);
  });

  it('leaves an answer that needs no payment alone', async () => {
    const channelFetch = client();
    expect((await channelFetch(`${gateway.url}/v1/channel/config`)).status).toBe(200);
    expect(gateway.served).toEqual([]);
  });

  it.each([
    ['a string', 'héllo'],
    ['a Uint8Array view into a larger buffer', new Uint8Array([9, 9, 1, 2, 3, 9]).subarray(2, 5)],
    ['a Buffer', Buffer.from('{"a":1}')],
    ['an ArrayBuffer', new Uint8Array([0, 255, 7]).buffer],
  ])('binds the digest to exactly the bytes it sends, from %s', async (_, body) => {
    const response = await chat(client(), body);
    expect(response.status).toBe(200);
    const expected = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
    expect(((await response.json()) as { echo: string }).echo).toBe(expected.toString('base64'));
  });

  it('reads last_cumulative from the gateway when not told it', async () => {
    gateway.lastCumulative = 50_000n;
    const channelFetch = client({ lastCumulative: undefined });
    expect(channelFetch.lastCumulative()).toBeUndefined();
    expect((await chat(channelFetch)).status).toBe(200);
    expect(channelFetch.lastCumulative()).toBe(50_000n + gateway.quote);
  });

  it('resyncs from the refusal of a stale voucher and signs once more', async () => {
    const channelFetch = client();
    gateway.lastCumulative = 10_000n; // another client of the same channel drew meanwhile
    expect((await chat(channelFetch)).status).toBe(200);
    expect(gateway.served.filter(({ paid }) => paid).map(({ status, cumulative }) => [status, cumulative])).toEqual([
      [402, gateway.quote],
      [200, 10_000n + gateway.quote],
    ]);
  });

  it('resyncs from a wrong delta too, but only once per request', async () => {
    const channelFetch = client({ lastCumulative: 1n }); // one atomic unit ahead of the gateway
    expect((await chat(channelFetch)).status).toBe(200);
    expect(channelFetch.lastCumulative()).toBe(gateway.quote);

    gateway.priceMoved = 1n; // the gateway wants another delta than its 402 quoted: no resync mends that
    expect((await chat(channelFetch)).status).toBe(402);
    expect(gateway.served.filter(({ paid }) => paid).map(({ status }) => status)).toEqual([402, 200, 402, 402]);
    expect(channelFetch.lastCumulative()).toBe(gateway.quote);
  });

  it('refreshes the slot when a voucher is refused as expired', async () => {
    const channelFetch = client();
    await chat(channelFetch);
    gateway.currentSlot += 1_460n; // fewer than 50 slots left on a voucher signed against the old slot
    expect((await chat(channelFetch)).status).toBe(200);
    expect(gateway.served.filter(({ paid }) => paid).map(({ status }) => status)).toEqual([200, 402, 200]);
  });

  it('waits out a busy channel, a bounded number of times', async () => {
    gateway.busyTimes = 1;
    const started = Date.now();
    expect((await chat(client())).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    gateway.busyTimes = 2;
    const refused = await chat(client({ lastCumulative: gateway.lastCumulative, busyRetries: 1 }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('X-Gw-Channel-Last-Cumulative')).toBe(String(gateway.lastCumulative));
  });

  it('serialises its requests: one draw at a time, none refused as busy', async () => {
    gateway.serveMs = 50;
    const channelFetch = client();
    const statuses = await Promise.all([1, 2, 3, 4].map(() => chat(channelFetch).then((response) => response.status)));
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(gateway.mostConcurrentDraws).toBe(1);
    expect(gateway.served.filter(({ paid }) => paid).map(({ status }) => status)).toEqual([200, 200, 200, 200]);
    expect(channelFetch.lastCumulative()).toBe(4n * gateway.quote);
  });

  it('returns a 503 that drew nothing as it is, so the next request pays the same cumulative', async () => {
    gateway.failTimes = 1;
    const channelFetch = client();
    expect((await chat(channelFetch)).status).toBe(503);
    expect(channelFetch.lastCumulative()).toBe(0n);
    expect((await chat(channelFetch)).status).toBe(200);
    expect(channelFetch.lastCumulative()).toBe(gateway.quote);
  });

  it('returns other refusals as they are, their body unread', async () => {
    gateway.deposited = 1_000n; // below the quote: an overdraw, to be paid with exact
    const refused = await chat(client());
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('payment.channel_overdraw');
  });

  it('resync() reads last_cumulative between requests', async () => {
    const channelFetch = client();
    gateway.lastCumulative = 77n;
    expect(await channelFetch.resync()).toBe(77n);
    expect(channelFetch.lastCumulative()).toBe(77n);
  });
});

describe('closeChannel', () => {
  it('posts the close signed by the session key and returns the answer', async () => {
    await chat(client());
    expect(await closeChannel(fetch, gateway.url, gateway.channelId, signer)).toEqual({
      channel_id: gateway.channelId,
      status: 'closing',
      deposited: '1000000',
      last_cumulative: String(gateway.quote),
      refund: String(1_000_000n - gateway.quote),
      payout: String(gateway.quote),
    });
  });

  it('throws the refusal of another key’s signature', async () => {
    const stranger = new ChannelSigner(Keypair.generate());
    await expect(closeChannel(fetch, gateway.url, gateway.channelId, stranger)).rejects.toMatchObject(
      new ChannelRouteError(401, 'payment.channel_bad_signature', `${gateway.url}/v1/channel/close answered 401 payment.channel_bad_signature: bad close signature`),
    );
  });
});
