import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { RawConnection, requestFrom, requestHead } from '../../support/raw-http';

/**
 * Row 2 of the attack table: one client opens 256 connections, each declaring a 2-byte body and
 * sending 1 byte. Before, each held a concurrency slot until the request timeout and every other
 * client got 503. Now the slot is taken only once the body is in, a body must arrive within
 * GW_BODY_READ_TIMEOUT_SECS (408, connection closed), and past GW_MAX_CONNECTIONS_PER_CLIENT a
 * connection is destroyed at accept, unanswered, and counted.
 */
describe('the open edge: slow clients', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_MAX_CONCURRENT_REQUESTS: '8', GW_BODY_READ_TIMEOUT_SECS: '3', GW_REQUEST_TIMEOUT_SECS: '60' });
  });
  afterAll(() => gateway.close());

  const rejections = async (): Promise<number> => {
    const metrics = await requestFrom('127.0.0.9', `${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    return Number(/gw_http_rejections_total\{reason="client_connections"\} (\d+)/.exec(metrics.body)?.[1] ?? 0);
  };

  it('row 2: 256 trickling connections hold no slot; another client is served; past 64 open they are destroyed at accept; the rest get 408 and are closed', async () => {
    const before = await rejections();
    const attackers = Array.from({ length: 256 }, () => new RawConnection(gateway.url));
    const opened = await Promise.all(
      attackers.map(
        async (attacker) => (await attacker.connected) && (await attacker.write(requestHead('POST', '/v1/chat/completions', { 'content-type': 'application/json', 'content-length': 2 }) + '{')),
      ),
    );
    expect(opened.filter(Boolean).length).toBeGreaterThanOrEqual(64);

    // Another client, during the attack: served, though 8 slots is all the gateway has.
    const during = await Promise.all(Array.from({ length: 12 }, () => requestFrom('127.0.0.2', `${gateway.url}/v1/models`)));
    expect(during.map((res) => res.status)).toEqual(Array(12).fill(200));

    const outcomes = await Promise.all(attackers.map(async (attacker) => ({ status: (await attacker.response)?.status ?? null, closed: await attacker.closed.then(() => true) })));
    const answered = outcomes.filter((outcome) => outcome.status !== null);
    // 64 held at a time (more only if some timed out and closed before the last arrived).
    expect(answered.length).toBeGreaterThanOrEqual(64);
    expect(answered.length).toBeLessThan(256);
    expect(new Set(answered.map((outcome) => outcome.status))).toEqual(new Set([408]));
    expect(outcomes.every((outcome) => outcome.closed)).toBe(true);
    // Those past the cap were closed with no answer, and counted.
    expect((await rejections()) - before).toBe(256 - answered.length);
    // The attacker's own address is served again once its connections are gone.
    expect((await requestFrom('127.0.0.1', `${gateway.url}/v1/models`)).status).toBe(200);
  });
});
