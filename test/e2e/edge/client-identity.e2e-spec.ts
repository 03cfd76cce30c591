import { Command, INETProtocol, IPv4Address, IPv4ProxyAddress, IPv6Address, IPv6ProxyAddress, Peer, TransportProtocol, V1ProxyProtocol, V2ProxyProtocol } from 'proxy-protocol-js';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway } from '../../support/gateway-harness';
import { RawConnection, requestHead } from '../../support/raw-http';

const CHAT = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] });

/** A v1 PROXY line naming `client` as the source. */
function proxyV1(client: string): string {
  const inet = client.includes(':') ? INETProtocol.TCP6 : INETProtocol.TCP4;
  return new V1ProxyProtocol(inet, new Peer(client, 40000), new Peer(inet === INETProtocol.TCP6 ? '::1' : '127.0.0.1', 8402)).build();
}

/** A request on its own connection from 127.0.0.1, behind `preamble` (a PROXY header, or nothing). */
async function send(url: string, preamble: string | Uint8Array, path: string, body: string | null, headers: Record<string, string> = {}, from = '127.0.0.1'): Promise<number | null> {
  const client = new RawConnection(url, from);
  if (preamble.length > 0) await client.write(Buffer.from(preamble));
  const head = requestHead(body === null ? 'GET' : 'POST', path, {
    connection: 'close',
    ...(body === null ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
    ...headers,
  });
  await client.write(head + (body ?? ''));
  const answer = await client.response;
  await client.closed;
  return answer?.status ?? null;
}

/**
 * One client identity (row 5 of the attack table): every window keys an IPv6 client by its /64, so
 * rotating through the addresses of one /64 buys no fresh window. The gateway sits behind a load
 * balancer on 127.0.0.1 speaking the PROXY protocol, which is how a test on loopback can be many
 * IPv6 clients.
 */
describe('the open edge: one client identity behind the PROXY protocol', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ GW_PROXY_PROTOCOL_CIDRS: '127.0.0.1/32', GW_RATE_LIMIT_MAX: '3', GW_FREE_TIER_RATE_LIMIT: '2', GW_FREE_TIER_GLOBAL_RPM: '1000' });
  });
  afterAll(() => gateway.close());

  it('row 5: rotating through the addresses of one IPv6 /64 gets no fresh free, quote or attempt window', async () => {
    const address = (network: string, i: number) => `2001:db8:${network}::${(i + 1).toString(16)}`;
    const statuses = async (network: string, count: number, body: string, headers: Record<string, string> = {}) => {
      const seen: Array<number | null> = [];
      for (let i = 0; i < count; i++) seen.push(await send(gateway.url, proxyV1(address(network, i)), '/v1/chat/completions', body, headers));
      return seen;
    };
    // Quotes: 3 a minute per client network.
    const quotes = await statuses('a:1', 4, CHAT('gpt'));
    expect(quotes.slice(0, 3)).toEqual([402, 402, 402]);
    expect(quotes[3]).toBe(429);
    // Payment attempts: 4 x 3 a minute per client network.
    const attempts = await statuses('a:2', 13, CHAT('gpt'), { 'payment-signature': 'junk' });
    expect(attempts.slice(0, 12).every((status) => status !== 429)).toBe(true);
    expect(attempts[12]).toBe(429);
    // The free tier: 2 a minute per client network.
    const free = await statuses('a:3', 3, CHAT('free'));
    expect(free.slice(0, 2).every((status) => status !== 429)).toBe(true);
    expect(free[2]).toBe(429);
    // Another /64 has windows of its own.
    expect(await send(gateway.url, proxyV1('2001:db8:a:4::1'), '/v1/chat/completions', CHAT('gpt'))).toBe(402);
  });

  it('an IPv4-mapped client and its IPv4 address share one window', async () => {
    const v4 = '198.51.100.7';
    for (let i = 0; i < 3; i++) expect(await send(gateway.url, proxyV1(i % 2 === 0 ? v4 : `::ffff:${v4}`), '/v1/chat/completions', CHAT('gpt'))).toBe(402);
    expect(await send(gateway.url, proxyV1(`::ffff:${v4}`), '/v1/chat/completions', CHAT('gpt'))).toBe(429);
  });

  it('an IPv4-mapped source in a v2 header (which ipaddr.js prints as ::ffff:cb00:713c) is its IPv4 client, not a /64 all such clients share', async () => {
    const mapped = (v4: number[]) => IPv6Address.createFrom([...Array<number>(10).fill(0), 0xff, 0xff, ...v4]);
    const v2 = (v4: number[]) => new V2ProxyProtocol(Command.PROXY, TransportProtocol.STREAM, new IPv6ProxyAddress(mapped(v4), 40000, mapped([127, 0, 0, 1]), 8402)).build();
    for (let i = 0; i < 3; i++) expect(await send(gateway.url, v2([203, 0, 113, 60]), '/v1/chat/completions', CHAT('gpt'))).toBe(402);
    // Another mapped client has a window of its own.
    expect(await send(gateway.url, v2([203, 0, 113, 61]), '/v1/chat/completions', CHAT('gpt'))).toBe(402);
    // The first one, named as IPv4 or as a mapped address in hex in a v1 line, is the same client.
    expect(await send(gateway.url, proxyV1('203.0.113.60'), '/v1/chat/completions', CHAT('gpt'))).toBe(429);
    expect(await send(gateway.url, proxyV1('::ffff:cb00:713c'), '/v1/chat/completions', CHAT('gpt'))).toBe(429);
  });

  it('takes v2 headers; a v2 LOCAL command is the balancer itself; the header is optional from it', async () => {
    const v2 = (command: Command, source: number[]) =>
      new V2ProxyProtocol(command, TransportProtocol.STREAM, new IPv4ProxyAddress(IPv4Address.createFrom(source), 40000, IPv4Address.createFrom([127, 0, 0, 1]), 8402)).build();
    for (let i = 0; i < 3; i++) expect(await send(gateway.url, v2(Command.PROXY, [203, 0, 113, 50]), '/v1/chat/completions', CHAT('gpt'))).toBe(402);
    expect(await send(gateway.url, v2(Command.PROXY, [203, 0, 113, 50]), '/v1/chat/completions', CHAT('gpt'))).toBe(429);
    // LOCAL and no header at all are both the peer, 127.0.0.1: one window.
    expect(await send(gateway.url, v2(Command.LOCAL, [203, 0, 113, 50]), '/v1/chat/completions', CHAT('gpt'))).toBe(402);
    expect(await send(gateway.url, '', '/v1/chat/completions', CHAT('gpt'))).toBe(402);
    expect(await send(gateway.url, v2(Command.LOCAL, [0, 0, 0, 0]), '/v1/chat/completions', CHAT('gpt'))).toBe(402);
    expect(await send(gateway.url, '', '/v1/chat/completions', CHAT('gpt'))).toBe(429);
  });

  it('closes, unanswered, a connection whose PROXY header comes from a peer outside GW_PROXY_PROTOCOL_CIDRS, or is malformed', async () => {
    expect(await send(gateway.url, proxyV1('203.0.113.9'), '/health/live', null, {}, '127.0.0.2')).toBeNull();
    expect(await send(gateway.url, 'PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n', '/health/live', null)).toBeNull();
    expect(await send(gateway.url, '', '/health/live', null, { 'x-forwarded-for': '203.0.113.9' }, '127.0.0.2')).toBe(200);
  });
});
