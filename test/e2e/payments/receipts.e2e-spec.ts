import { randomUUID } from 'node:crypto';
import type { RunningGateway } from '../../../src/gateway';
import { ReceiptStore } from '../../../src/modules/payments/ports/receipt-store';
import { pendingReceipt } from '../../contracts/receipt-store.contract';
import { startTestGateway } from '../../support/gateway-harness';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';
import { pgliteStorage, postgresStorage, type TestStorage } from '../../support/storage-env';

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

async function getReceipt(gateway: RunningGateway, id: string): Promise<Answer> {
  const res = await fetch(`${gateway.url}/v1/receipts/${id}`);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** A gateway of its own for each describe block, so rate-limit counts never leak between blocks. */
function withGateway(storage: () => Promise<TestStorage>): { gateway: () => RunningGateway; store: () => ReceiptStore } {
  let gateway: RunningGateway;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const opened = await storage();
    drop = opened.drop;
    gateway = await startTestGateway(opened.env);
  });
  afterAll(async () => {
    await gateway.close();
    await drop();
  });
  return { gateway: () => gateway, store: () => gateway.app.get(ReceiptStore) };
}

function receiptRoute(storage: () => Promise<TestStorage>): void {
  describe('lookups', () => {
    const { gateway, store } = withGateway(storage);

    it('answers 200 with a settled receipt in snake_case, amounts exact', async () => {
      const receipt = pendingReceipt({ id: '0f8fad5b-d9cb-469f-a165-70867728950e', requestId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' });
      await store().create(receipt);
      await store().complete(receipt.id, { status: 'settled', amountChargedAtomic: 21_505n, settledAt: new Date('2026-11-22T10:00:02.456Z') });

      const res = await getReceipt(gateway(), receipt.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: '0f8fad5b-d9cb-469f-a165-70867728950e',
        object: 'receipt',
        status: 'settled',
        scheme: 'exact',
        network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        payer_wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
        pay_to: '11111111111111111111111111111111',
        transaction_signature: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
        amount_quoted_atomic: '21505',
        amount_paid_atomic: '21505',
        amount_charged_atomic: '21505',
        amount_charged_usdc: '0.021505',
        endpoint: '/v1/chat/completions',
        model: 'google/gemini-2.5-flash',
        request_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
        created_at: '2026-11-22T10:00:00.123Z',
        settled_at: '2026-11-22T10:00:02.456Z',
        delivery: null,
        broadcast_at: null,
      });
      // The signed transaction and the replay key are stored, never shown.
      expect(res.body).not.toHaveProperty('signed_transaction');
      expect(res.body).not.toHaveProperty('replay_key');
    });

    it('shows a pending receipt with nothing charged yet and settled_at null, amounts beyond 2^53 exact', async () => {
      const receipt = pendingReceipt({ amountQuotedAtomic: 9_007_199_254_740_993n, amountPaidAtomic: 9_007_199_254_740_993n });
      await store().create(receipt);
      const res = await getReceipt(gateway(), receipt.id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'pending',
        amount_quoted_atomic: '9007199254740993',
        amount_paid_atomic: '9007199254740993',
        amount_charged_atomic: '0',
        amount_charged_usdc: '0.000000',
        settled_at: null,
      });
    });

    it('answers the identical 404 for an unknown and for a malformed id', async () => {
      const unknown = await getReceipt(gateway(), randomUUID());
      const malformed = await getReceipt(gateway(), 'not-a-uuid');
      for (const res of [unknown, malformed]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { type: 'not_found', message: 'receipt not found', code: 'receipt.not_found', param: null } });
      }
    });
  });

  describe('per-IP rate limit', () => {
    const { gateway, store } = withGateway(storage);

    it('serves 20 lookups a minute per client and refuses the 21st with 429 and the limiter headers', async () => {
      const receipt = pendingReceipt();
      await store().create(receipt);
      for (let n = 1; n <= 20; n += 1) {
        const res = await getReceipt(gateway(), receipt.id);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('20');
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(20 - n));
      }

      // Malformed ids are counted and refused like any other: the limit comes before the lookup.
      for (const id of [receipt.id, 'not-a-uuid']) {
        const refused = await getReceipt(gateway(), id);
        expect(refused.status).toBe(429);
        expect(refused.body).toEqual({ error: { type: 'rate_limit_exceeded', message: 'Too many requests. Please slow down.', code: 'rate_limit.exceeded', param: null } });
        expect(refused.headers.get('x-ratelimit-limit')).toBe('20');
        expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
        const reset = Number(refused.headers.get('x-ratelimit-reset'));
        expect(reset).toBeGreaterThanOrEqual(1);
        expect(reset).toBeLessThanOrEqual(60);
        expect(refused.headers.get('retry-after')).toBe(String(reset));
      }
    });
  });
}

describe('GET /v1/receipts/:id on embedded PGlite', () => {
  receiptRoute(pgliteStorage);
});

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;

describeWithPostgres('GET /v1/receipts/:id on PostgreSQL (local server)', () => {
  receiptRoute(postgresStorage);
});

describe('GET /v1/receipts/:id with GW_STORAGE=none', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.close());

  it('answers 503: receipt storage is not configured', async () => {
    const res = await getReceipt(gateway, randomUUID());
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: { type: 'service_unavailable', message: 'receipt storage is not configured', code: 'receipt.storage_not_configured', param: null } });
  });
});

const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;

describeWithRedis('the receipts limit across two instances sharing Redis', () => {
  let redis: PrivateRedis;
  let gateways: RunningGateway[];

  beforeAll(async () => {
    redis = await startPrivateRedis();
    gateways = await Promise.all([startTestGateway({ REDIS_URL: redis.url }), startTestGateway({ REDIS_URL: redis.url })]);
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await redis.close();
  });

  it('is one budget of 20 a minute per client: 10 lookups on each instance spend it, the 21st is refused on either', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 20; n += 1) statuses.push((await getReceipt(gateways[n % 2], randomUUID())).status);
    expect(new Set(statuses)).toEqual(new Set([503]));

    for (const gateway of gateways) {
      const refused = await getReceipt(gateway, randomUUID());
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    }
  });
});
