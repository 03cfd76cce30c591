import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { RawConnection, requestFrom, requestHead } from '../../support/raw-http';

const MiB = 1024 * 1024;
const ATTACKERS = 40;
/** What each attacking connection sends of the 10 MiB it declares before it stalls: the start of a valid chat body. */
const SENT = (() => {
  const start = '{"model":"auto","messages":[{"role":"user","content":"';
  return start + 'x'.repeat(MiB - start.length);
})();

/**
 * One client cannot take the bound on bytes in flight from the others (docs/decisions.md, "Slow
 * clients hold nothing"). Before, a declared Content-Length reserved its whole length before a
 * byte was read: 26 connections from one address each declaring a 10 MiB chat body, and sending
 * next to nothing, held all 256 MiB, and every other client's body was 503. Now bytes are taken as
 * they arrive, and one client network holds at most GW_MAX_BODY_BYTES_IN_FLIGHT_PER_CLIENT
 * (32 MiB by default) of them: past it that client is refused, and no one else. The shared bound
 * is set to 200 MiB here, twenty of the declared lengths, so that before, the attack filled it to
 * the byte.
 */
describe('the open edge: body bytes in flight per client', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_MAX_BODY_BYTES_IN_FLIGHT: String(200 * MiB) });
  });
  afterAll(() => gateway.close());

  const rejections = async (): Promise<number> => {
    const metrics = await requestFrom('127.0.0.9', `${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    return Number(/gw_http_rejections_total\{reason="client_body_bytes"\} (\d+)/.exec(metrics.body)?.[1] ?? 0);
  };

  it('40 stalled 10 MiB chat uploads from one client hold its 32 MiB share at most: past it that client gets 503, while another client is served', async () => {
    const before = await rejections();
    const attackers = Array.from({ length: ATTACKERS }, () => new RawConnection(gateway.url, '127.0.0.2'));
    for (const attacker of attackers) void attacker.write(requestHead('POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': 10 * MiB }) + SENT);
    const outcomes = attackers.map(async (attacker) => {
      const answer = await attacker.response;
      await attacker.closed;
      return { status: answer?.status ?? null, retryAfter: answer?.headers['retry-after'], connection: answer?.headers.connection, body: answer ? (JSON.parse(answer.body) as unknown) : null };
    });
    // The attack is in place once the bytes past the attacker's share have been refused: 40 MiB sent, at most 32 MiB held.
    let refused = 0;
    const pastShare = new Promise<void>((resolve) => {
      for (const outcome of outcomes) void outcome.then((answer) => answer.status === 503 && ++refused === ATTACKERS - 32 && resolve());
    });
    await Promise.race([pastShare, Promise.all(outcomes)]);

    // Another client, meanwhile: its chat body (5 MiB in one string) and its A2A body are read and answered.
    const chat = await requestFrom('127.0.0.3', `${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'y'.repeat(5 * MiB) }] }),
    });
    expect(chat.status).toBe(402);
    const a2a = await requestFrom('127.0.0.3', `${gateway.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'z'.repeat(512 * 1024) }] } },
      }),
    });
    expect(a2a.status).toBe(200);

    // The attacker's connections: those past its share 503 with Retry-After, closed; the rest held to the read timeout.
    const answers = await Promise.all(outcomes);
    const tooMany = answers.filter((answer) => answer.status === 503);
    expect(tooMany.length).toBeGreaterThanOrEqual(ATTACKERS - 32);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([503, 408]));
    expect(tooMany[0]).toEqual({
      status: 503,
      retryAfter: '1',
      connection: 'close',
      body: { error: { type: 'service_unavailable', message: 'too many request bodies being read from this client; retry shortly', code: 'server.overloaded', param: null } },
    });
    expect(new Set(tooMany.map((answer) => `${answer.retryAfter} ${answer.connection}`))).toEqual(new Set(['1 close']));
    expect((await rejections()) - before).toBe(tooMany.length);
    // Every byte of its share is free again once its bodies are gone.
    expect((await requestFrom('127.0.0.2', `${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: SENT + '"}]}' })).status).toBe(402);
  });
});
