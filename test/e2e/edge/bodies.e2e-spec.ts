import { gzipSync } from 'node:zlib';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway } from '../../support/gateway-harness';
import { RawConnection, requestFrom, requestHead } from '../../support/raw-http';

const MiB = 1024 * 1024;
/** The attack of row 1: ten megabytes of `[`, and the same gzipped (about 10 KB). */
const NESTED = Buffer.alloc(10 * 1000 * 1000, '[');
const NESTED_GZIP = gzipSync(NESTED);

/** The status of every answer a connection received, interim ones (`100 Continue`) included. */
function parseStatuses(received: string): number[] {
  return [...received.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((match) => Number(match[1]));
}

/**
 * Bodies are cheap to refuse: what one unpaid client could make the gateway read, inflate, parse
 * or hold is refused from the headers alone, or as the body streams in, and the connection closed.
 * Each attack is answered before its body has been sent (the test never sends it), so nothing of
 * it was read; a client on another address is served meanwhile.
 */
describe('the open edge: request bodies', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ GW_BODY_READ_TIMEOUT_SECS: '3', GW_MAX_BODY_BYTES_IN_FLIGHT: String(64 * MiB) });
  });
  afterAll(() => gateway.close());

  /** Sends only the head of a request that declares `bytes` of body, and waits for the answer and the close. */
  async function headOnly(path: string, headers: Record<string, string | number>, method = 'POST'): Promise<{ status: number | undefined; body: unknown; connection: string | undefined }> {
    const attacker = new RawConnection(gateway.url);
    await attacker.write(requestHead(method, path, headers));
    const answer = await attacker.response;
    await attacker.closed;
    return { status: answer?.status, body: answer ? JSON.parse(answer.body) : null, connection: answer?.headers.connection };
  }

  it('row 1: a 10 MB nested body to /health or an unknown route, plain or gzipped, is refused unread and the connection closed, while another client is served', async () => {
    const legit = requestFrom('127.0.0.2', `${gateway.url}/health/live`);
    const json = { 'content-type': 'application/json', 'content-length': NESTED.length };
    expect(await headOnly('/health', json, 'GET')).toEqual({
      status: 413,
      body: { error: { type: 'payload_too_large', message: 'GET /health takes no request body', code: 'request.body_too_large', param: null } },
      connection: 'close',
    });
    expect(await headOnly('/health', json)).toEqual({
      status: 404,
      body: { error: { type: 'not_found', message: 'route not found: POST /health', code: 'route.not_found', param: null } },
      connection: 'close',
    });
    expect(await headOnly('/no/such/route', json)).toEqual({
      status: 404,
      body: { error: { type: 'not_found', message: 'route not found: POST /no/such/route', code: 'route.not_found', param: null } },
      connection: 'close',
    });
    const gzipped = { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': NESTED_GZIP.length };
    expect(await headOnly('/v1/chat/completions', gzipped)).toEqual({
      status: 415,
      body: {
        error: { type: 'unsupported_media_type', message: 'request bodies must not be compressed: Content-Encoding must be identity or absent', code: 'request.unsupported_encoding', param: null },
      },
      connection: 'close',
    });
    expect((await headOnly('/health', gzipped, 'GET')).status).toBe(413);
    expect((await legit).status).toBe(200);
  });

  it('row 1: a body declared over its route limit is 413 before a byte is read; a GET with a body is 413', async () => {
    const json = (bytes: number) => ({ 'content-type': 'application/json', 'content-length': bytes });
    expect((await headOnly('/v1/chat/completions', json(10 * MiB + 1))).body).toEqual({
      error: { type: 'payload_too_large', message: `request body exceeds ${10 * MiB} bytes`, code: 'request.body_too_large', param: null },
    });
    expect((await headOnly('/a2a', json(MiB + 1))).status).toBe(413);
    expect((await headOnly('/v1/services/some-service/proxy', json(MiB + 1))).status).toBe(413);
    expect((await headOnly('/v1/orgs', json(64 * 1024 + 1))).status).toBe(413);
    expect((await headOnly('/v1/search', json(64 * 1024 + 1))).status).toBe(413);
    expect((await headOnly('/v1/models', json(2), 'GET')).body).toEqual({
      error: { type: 'payload_too_large', message: 'GET /v1/models takes no request body', code: 'request.body_too_large', param: null },
    });
    // A model's own route, in either form, is known to the edge and takes no body either.
    for (const model of ['openai%2Fgpt-4o', 'openai/gpt-4o']) expect((await headOnly(`/v1/models/${model}`, json(2), 'GET')).status).toBe(413);
    expect((await headOnly('/v1/models/a/b/c', json(2), 'GET')).status).toBe(404);
    // A DELETE of an enterprise controller, whose POST and PUT routes take 64 KiB, takes none.
    const revoke = '/v1/orgs/00000000-0000-4000-8000-000000000000/api-keys/00000000-0000-4000-8000-000000000001';
    expect((await headOnly(revoke, json(2), 'DELETE')).body).toEqual({
      error: { type: 'payload_too_large', message: `DELETE ${revoke} takes no request body`, code: 'request.body_too_large', param: null },
    });
  });

  it('row 1: nesting is counted while the body streams in: 65 levels are refused before the rest of a 10 MB body is sent', async () => {
    const attacker = new RawConnection(gateway.url);
    await attacker.write(requestHead('POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': NESTED.length }));
    await attacker.write(NESTED.subarray(0, 4096));
    const answer = await attacker.response;
    await attacker.closed;
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer?.body ?? '')).toEqual({
      error: { type: 'bad_request', message: '[0][0][0][0]... is nested too deeply: objects and arrays may nest at most 64 levels', code: 'request.nesting_too_deep', param: '[0][0][0][0]...' },
    });
  });

  it('a chat body of 200,000 tiny values is 413 as it streams in, before the rest is sent or any of it parsed; 5 MiB of text in one string passes the edge', async () => {
    const values = `{"model":"auto","messages":[{"role":"user","content":"hi"}],"stop":[${'0,'.repeat(199_999)}0]}`;
    const attacker = new RawConnection(gateway.url);
    await attacker.write(requestHead('POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': values.length }));
    // 256 KiB holds more than 100,000 of the values; the rest is never sent.
    await attacker.write(values.slice(0, 256 * 1024));
    const answer = await attacker.response;
    await attacker.closed;
    expect({ status: answer?.status, connection: answer?.headers.connection, body: JSON.parse(answer?.body ?? '') as unknown }).toEqual({
      status: 413,
      connection: 'close',
      body: { error: { type: 'payload_too_large', message: 'request body holds more than 100000 JSON values', code: 'request.too_many_values', param: null } },
    });
    const text = await requestFrom('127.0.0.2', `${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'x'.repeat(5 * MiB) }] }),
    });
    expect(text.status).toBe(402);
  });

  it('row 3: 48 stalled 10 MiB uploads hold no memory: /health refuses them unread, chat bounds the bytes in flight and times the rest out with 408', async () => {
    const before = process.memoryUsage().rss;
    const legitDuring: Array<Promise<{ status: number }>> = [];
    const uploads = Array.from({ length: 48 }, (_, i) => {
      const attacker = new RawConnection(gateway.url);
      const [method, path] = i % 2 === 0 ? ['GET', '/health'] : ['POST', '/v1/chat/completions'];
      void attacker.write(requestHead(method, path, { 'content-type': 'application/json', 'content-length': 10 * MiB }) + '{"pad":"' + 'x'.repeat(MiB));
      return { attacker, path };
    });
    legitDuring.push(requestFrom('127.0.0.2', `${gateway.url}/v1/models`));
    const answers = await Promise.all(uploads.map(async ({ attacker, path }) => ({ path, status: (await attacker.response)?.status, closed: await attacker.closed.then(() => true) })));
    const byOutcome = (path: string) => answers.filter((answer) => answer.path === path).map((answer) => `${answer.status}${answer.closed ? ' closed' : ''}`);
    expect(new Set(byOutcome('/health'))).toEqual(new Set(['413 closed']));
    // Bytes in flight are taken as they arrive, not as declared: the 24 chat uploads hold the megabyte each sent, within the bounds, and time out with 408.
    expect(new Set(byOutcome('/v1/chat/completions'))).toEqual(new Set(['408 closed']));
    expect((await Promise.all(legitDuring)).map((res) => res.status)).toEqual([200]);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * MiB);
    // Every slot and every byte of the bound is free again.
    expect((await requestFrom('127.0.0.1', `${gateway.url}/v1/models`)).status).toBe(200);
  });

  it('a path matches as Express matches it, one trailing slash and no more: two are 404 unread, one is the route', async () => {
    const json = (bytes: number) => ({ 'content-type': 'application/json', 'content-length': bytes });
    expect(await headOnly('/v1/chat/completions//', json(10 * MiB))).toEqual({
      status: 404,
      body: { error: { type: 'not_found', message: 'route not found: POST /v1/chat/completions//', code: 'route.not_found', param: null } },
      connection: 'close',
    });
    expect((await headOnly('/v1/models/openai%2Fgpt-4o//', json(2), 'GET')).status).toBe(404);
    // With one, the route's own limit applies, and what the edge lets through the router serves.
    expect((await headOnly('/V1/CHAT/COMPLETIONS/', json(10 * MiB + 1))).status).toBe(413);
    const chat = JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });
    expect((await requestFrom('127.0.0.2', `${gateway.url}/v1/chat/completions/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat })).status).toBe(402);
    expect((await requestFrom('127.0.0.2', `${gateway.url}/v1/models/openai%2Fgpt-4o/`)).status).toBe(200);
  });

  it('an OPTIONS with a body, preflight or not, is refused unread and the connection closed', async () => {
    const preflight = { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'content-type': 'application/json' };
    expect(await headOnly('/v1/chat/completions', { ...preflight, 'content-length': 10 * MiB }, 'OPTIONS')).toEqual({
      status: 413,
      body: { error: { type: 'payload_too_large', message: 'OPTIONS /v1/chat/completions takes no request body', code: 'request.body_too_large', param: null } },
      connection: 'close',
    });
    expect((await headOnly('/v1/chat/completions', { ...preflight, origin: 'https://elsewhere.example', 'transfer-encoding': 'chunked' }, 'OPTIONS')).status).toBe(413);
    expect((await headOnly('/v1/models', { 'content-type': 'application/json', 'content-length': 2 }, 'OPTIONS')).status).toBe(413);
    // A preflight as browsers send it, with no body, is answered as before.
    expect(
      (await requestFrom('127.0.0.2', `${gateway.url}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' } })).status,
    ).toBe(204);
  });

  it('Expect: 100-continue gets no 100 for a request its headers refuse, and the refusal closes the connection', async () => {
    const expecting = (bytes: number) => ({ 'content-type': 'application/json', 'content-length': bytes, expect: '100-continue' });
    const cases: Array<[string, string, Record<string, string | number>, number]> = [
      ['POST', '/no/such/route', expecting(10), 404],
      ['POST', '/v1/chat/completions', expecting(10 * MiB + 1), 413],
      ['GET', '/health', expecting(10), 413],
      ['POST', '/v1/chat/completions', { ...expecting(10), 'content-encoding': 'gzip' }, 415],
      ['POST', '/v1/chat/completions', { ...expecting(10), 'content-type': 'text/plain' }, 415],
    ];
    for (const [method, path, headers, status] of cases) {
      const client = new RawConnection(gateway.url);
      await client.write(requestHead(method, path, headers));
      await client.closed;
      expect({ path, answers: parseStatuses(client.received), connection: (await client.response)?.headers.connection }).toEqual({ path, answers: [status], connection: 'close' });
    }
  });

  it('Expect: 100-continue on a good request gets 100 Continue, then, the body sent, its answer', async () => {
    const chat = JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });
    const client = new RawConnection(gateway.url);
    await client.write(requestHead('POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': chat.length, expect: '100-continue' }));
    expect((await client.answers(1)).map((answer) => answer.status)).toEqual([100]);
    await client.write(chat);
    expect((await client.answers(2)).map((answer) => answer.status)).toEqual([100, 402]);
    client.destroy();
  });

  it('row 4: an unpaid chat request gzipped is 415 before a byte is read (10 MB of text sent as 15 KB)', async () => {
    const text = gzipSync(Buffer.from(JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'aé中ж'.repeat(2_500_000) }] })));
    const res = await headOnly('/v1/chat/completions', { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': text.length });
    expect({ status: res.status, code: (res.body as { error: { code: string } }).error.code }).toEqual({ status: 415, code: 'request.unsupported_encoding' });
  });
});
