import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { userMessage } from '../../support/a2a-client';
import { requestFrom } from '../../support/raw-http';
import { fundedPayer } from '../../support/settlement-probes';

const CHAT = '/v1/chat/completions';
/** A chat body of about `bytes` bytes of text for `model`. */
const bodyOf = (bytes: number, model = 'openai/gpt-4o-mini'): string => JSON.stringify({ model, messages: [{ role: 'user', content: 'x'.repeat(bytes) }], max_tokens: 50 });
const post = (from: string, gateway: RunningGateway, body: string, headers: Record<string, string> = {}) =>
  requestFrom(from, `${gateway.url}${CHAT}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

/**
 * Unpaid work is budgeted per client network in request body bytes (GW_UNPAID_BODY_BYTES_PER_MIN;
 * docs/decisions.md, "The unpaid budget"): the router, the estimate and the guard read an unpaid
 * body before any payment, so a client's unpaid bodies are counted, after its own window and before
 * any of that work, and past the budget it gets 429 (`unpaid:bytes`), while other clients are
 * served. Free requests count; a request whose payment verifies gets its bytes back.
 */
describe('the open edge: the unpaid budget in body bytes (row 4)', () => {
  describe('unpaid and free requests', () => {
    let gateway: RunningGateway;
    beforeAll(async () => {
      gateway = await startTestGateway({ GW_UNPAID_BODY_BYTES_PER_MIN: '1300000', GW_FREE_TIER_RATE_LIMIT: '1000', GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    });
    afterAll(() => gateway.close());

    it('counts unpaid chat bodies per client network: past the budget a quote is 429 before any work, and another client is still quoted', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await post('127.0.0.3', gateway, bodyOf(400_000))).status);
      expect(statuses).toEqual([402, 402, 402, 429]);
      const refused = await post('127.0.0.3', gateway, bodyOf(10));
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'rate_limit.exceeded' } });
      expect(refused.headers['x-ratelimit-limit']).toBe('1300000');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await post('127.0.0.4', gateway, bodyOf(400_000))).status).toBe(402);
      const metrics = await requestFrom('127.0.0.1', `${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
      expect(metrics.body).toMatch(/^gw_rate_limit_rejections_total\{limiter="unpaid:bytes"\} 2$/m);
    });

    it('free requests count too', async () => {
      // No free provider is configured here: each free request still counts before it is refused further on.
      for (let i = 0; i < 3; i++) await post('127.0.0.5', gateway, bodyOf(400_000, 'free'));
      expect((await post('127.0.0.5', gateway, bodyOf(400_000))).status).toBe(429);
    });
  });

  describe('A2A payment attempts', () => {
    let gateway: RunningGateway;
    beforeAll(async () => {
      gateway = await startTestGateway({ GW_UNPAID_BODY_BYTES_PER_MIN: '400000' });
    });
    afterAll(() => gateway.close());

    const a2a = (from: string, params: unknown) =>
      requestFrom(from, `${gateway.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params }) });

    it("count the task's stored text, which each attempt plans and guards again, beside their own bytes", async () => {
      // 99,000 characters, about 165 KB: the quote and one attempt fit in 400 KB, a second attempt does not.
      const text = 'aя中ب1 '.repeat(16_500).slice(0, 99_000);
      const quoted = await a2a('127.0.0.7', userMessage(text, { model: 'openai/gpt-4o-mini' }));
      const taskId = (JSON.parse(quoted.body) as { result: { id: string } }).result.id;
      const attempt = () => a2a('127.0.0.7', userMessage('pay', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': { junk: true } }, taskId));
      const first = await attempt();
      expect(first.status).toBe(200);
      expect(JSON.parse(first.body)).toMatchObject({ error: { code: expect.any(Number) } });
      const second = await attempt();
      expect(second.status).toBe(429);
      expect(JSON.parse(second.body)).toMatchObject({ error: { code: 'rate_limit.exceeded' } });
    });
  });

  describe('paid requests', () => {
    let world: PaidWorld;
    let gateway: RunningGateway;
    beforeAll(async () => {
      world = await startPaidWorld();
      gateway = await startPaidGateway(world, { GW_UNPAID_BODY_BYTES_PER_MIN: '600000' });
    });
    afterAll(async () => {
      await gateway.close();
      await world.close();
    });

    it('give their bytes back once the payment verifies', async () => {
      const body = chatBody({ messages: [{ role: 'user', content: 'x'.repeat(400_000) }] });
      const text = JSON.stringify(body);
      const { header } = await quote(gateway, body);
      const payment = specPaymentHeader(world, header, { payer: fundedPayer(world) });
      // The quote above came from 127.0.0.1; this client pays at once.
      expect((await post('127.0.0.6', gateway, text, { 'payment-signature': payment })).status).toBe(200);
      // 400 KB more fits only because the paid request's 400 KB were given back.
      expect((await post('127.0.0.6', gateway, text)).status).toBe(402);
      expect((await post('127.0.0.6', gateway, text)).status).toBe(429);
    });
  });
});
