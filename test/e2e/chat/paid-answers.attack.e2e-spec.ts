import type { RunningGateway } from '../../../src/gateway';
import type { SpendRecord } from '../../../src/modules/billing/domain/spend-record';
import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, watchSpendRows, type PaidWorld } from '../../support/paid-gateway';
import { sseData } from '../../support/upstreams';

interface Chunk {
  choices: unknown[];
  usage?: unknown;
}

/**
 * Usage in a paid stream is the codec's to show (openAiChunks), whatever the answer's source: the
 * provider, or the cache. Attacks: a usage chunk leaking to a client that did not ask for it, or
 * missing for one that did; a cached paid answer charged or recorded twice, or not at all.
 */
describe('paid answers, fresh and cached: usage chunks and spend rows (attacks)', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;
  let rows: SpendRecord[];

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, { GW_CACHE_TTL_SECS: '60' });
    rows = watchSpendRows(gateway);
  });
  beforeEach(() => {
    rows.length = 0;
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  async function paidStream(body: Record<string, unknown>): Promise<{ chunks: Chunk[]; cache: string | null; amount: bigint }> {
    const { header, amount } = await quote(gateway, body);
    const res = await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header) });
    expect(res.status).toBe(200);
    const cache = res.headers.get('x-gw-cache');
    const data = await sseData(res);
    expect(data[data.length - 1]).toBe('[DONE]');
    return { chunks: data.slice(0, -1).map((item) => JSON.parse(item) as Chunk), cache, amount };
  }

  it.each([false, true])('include_usage %s: the usage chunk shows exactly when asked, fresh or from the cache, and each answer has one row', async (includeUsage) => {
    const body = chatBody({ stream: true, stream_options: { include_usage: includeUsage }, messages: [{ role: 'user', content: `cache me ${String(includeUsage)}` }] });
    const fresh = await paidStream(body);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the cache write is in the background
    const cached = await paidStream(body);
    expect(world.upstreams.openai.requests).toHaveLength(1);
    for (const { chunks } of [fresh, cached]) {
      const withUsage = chunks.filter((chunk) => chunk.usage !== undefined && chunk.usage !== null);
      expect(withUsage).toHaveLength(includeUsage ? 1 : 0);
      expect(chunks.filter((chunk) => chunk.choices.length === 0)).toHaveLength(includeUsage ? 1 : 0);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.requestId)).size).toBe(2);
    expect(rows.map((row) => row.amountChargedAtomic)).toEqual([fresh.amount, cached.amount]);
  });
});
