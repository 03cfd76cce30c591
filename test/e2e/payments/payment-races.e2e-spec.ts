import { Agent, request } from 'undici';
import type { RunningGateway } from '../../../src/gateway';
import { CHAT_PATH, chatBody, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { createTestDatabase } from '../../support/postgres';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { POSTGRES_ADMIN_URL, serviceAvailable } from '../../support/services';
import { FINAL_STATUSES, fundedPayer, readReceiptsUntil, sleep, type ReceiptRead } from '../../support/settlement-probes';
import { expectAll, REPLAYED } from '../../support/settlement-world';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy';

/**
 * Races and faults on the paid path, black box: real gateways on real ports, PostgreSQL storage,
 * Redis shared between instances, the local chain. One payment fired many times is accepted once
 * (the pending receipt's unique replay key is the durable claim, also with Redis gone), and a
 * PostgreSQL outage while payments are in flight loses no receipt and no charge.
 */

const BURST = 1_000;

/** Limits raised so that a burst from one client and one wallet meets only the replay protection (its 1,000 connections included). */
const RACE_ENV = {
  GW_STORAGE: undefined,
  GW_MAX_CONCURRENT_REQUESTS: '5000',
  GW_MAX_CONNECTIONS_PER_CLIENT: '0',
  GW_RATE_LIMIT_MAX: '100000',
  GW_RECONCILE_INTERVAL_SECS: '1',
  GW_LEASE_TTL_SECS: '2',
  GW_SHUTDOWN_GRACE_SECS: '1',
};

interface Answer {
  /** The HTTP status, or 'error' when no answer came (connection failure, timeout). */
  status: number | 'error';
  body: string;
  /** The X-Gw-Receipt path, when the answer carried one. */
  receipt: string | null;
}

const needed = serviceAvailable('postgres') && serviceAvailable('redis');
const describeWithServices = needed ? describe : describe.skip;

describeWithServices('payment races and faults (two instances, PostgreSQL storage, a shared private Redis)', () => {
  let world: PaidWorld;
  // A Redis of the suite's own, shared by the instances of a test: no key of another suite, and free to kill.
  let redis: PrivateRedis;
  // Enough sockets that a burst reaches the gateways at once rather than queued in the client.
  const client = new Agent({ connections: 600, pipelining: 1, keepAliveTimeout: 10_000 });

  beforeAll(async () => {
    world = await startPaidWorld();
  });
  beforeEach(async () => {
    redis = await startPrivateRedis();
  });
  afterEach(async () => {
    world.upstreams.resetAll();
    await redis.close();
  });
  afterAll(async () => {
    await client.close();
    await world.close();
  });

  const post = async (gateway: RunningGateway, body: unknown, payment: string): Promise<Answer> => {
    try {
      const res = await request(`${gateway.url}${CHAT_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'payment-signature': payment },
        body: JSON.stringify(body),
        dispatcher: client,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const receipt = res.headers['x-gw-receipt'];
      return { status: res.statusCode, body: await res.body.text(), receipt: typeof receipt === 'string' ? receipt : null };
    } catch (err) {
      return { status: 'error', body: String((err as Error).message ?? err), receipt: null };
    }
  };

  /** Status counts, the distinct 402 bodies, and the distinct other failures: one readable assertion on a whole burst. */
  const tally = (answers: Answer[]): { statuses: Record<string, number>; refusals: string[]; others: string[] } => {
    const statuses: Record<string, number> = {};
    for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
    const distinct = (picked: Answer[]): string[] => [...new Set(picked.map((a) => `${a.status} ${a.body.slice(0, 300)}`))];
    return { statuses, refusals: distinct(answers.filter((a) => a.status === 402)), others: distinct(answers.filter((a) => a.status !== 402 && a.status !== 200)) };
  };

  const recipientBalance = (): bigint => world.localnet.usdcBalance(world.recipient.publicKey);

  /** What `onTwoInstances` hands its test: the instances, one signed payment, and the chain before it was sent. */
  interface Race {
    one: RunningGateway;
    two: RunningGateway;
    payment: string;
    amount: bigint;
    recipientBefore: bigint;
    sentBefore: number;
  }

  /** Two instances on a fresh database and the test's Redis, and a payment for them to race on; both closed and the database dropped after `run`. */
  async function onTwoInstances(run: (race: Race) => Promise<void>): Promise<void> {
    const database = await createTestDatabase();
    const env = { ...RACE_ENV, DATABASE_URL: database.url, REDIS_URL: redis.url };
    // One after the other: the first migrates the fresh database.
    const one = await startPaidGateway(world, env);
    const two = await startPaidGateway(world, env).catch(async (err: unknown) => {
      await one.close();
      throw err;
    });
    try {
      const payer = fundedPayer(world);
      const { header, amount } = await quote(one, chatBody());
      const payment = specPaymentHeader(world, header, { payer });
      const [recipientBefore, sentBefore] = [recipientBalance(), world.localnet.sentTransactions().length];
      await run({ one, two, payment, amount, recipientBefore, sentBefore });
    } finally {
      await Promise.all([one.close(), two.close()]);
      await database.drop();
    }
  }

  it(
    `one payment fired ${BURST} times across two instances: one 200, one transfer, one provider call`,
    () =>
      onTwoInstances(async ({ one, two, payment, amount, recipientBefore, sentBefore }) => {
        const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => post(i % 2 ? two : one, chatBody(), payment)));

        expect(tally(answers)).toEqual({ statuses: { 200: 1, 402: BURST - 1 }, refusals: [`402 ${JSON.stringify(REPLAYED)}`], others: [] });
        expect(world.localnet.sentTransactions().length - sentBefore).toBe(1);
        expect(recipientBalance() - recipientBefore).toBe(amount);
        expect(world.upstreams.openai.requests).toHaveLength(1);
        const winner = answers.find((a) => a.status === 200) as Answer;
        expect(winner.receipt).toMatch(/^\/v1\/receipts\/[0-9a-f-]{36}$/);
        const [{ receipt, last }] = await readUntilFinal([one, two], [winner.receipt], 10_000);
        expect(receipt ?? last).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'complete' });
      }),
    90_000,
  );

  it(
    `one payment fired ${BURST} times with Redis killed mid-burst: at most one 200, at most one transfer, charged only if served`,
    () =>
      onTwoInstances(async ({ one, two, payment, amount, recipientBefore, sentBefore }) => {
        const early = Array.from({ length: 200 }, (_, i) => post(i % 2 ? two : one, chatBody(), payment));
        // Kill as soon as the gateways are answering the burst: claims are being made and refused.
        await Promise.race(early);
        await redis.kill();
        const late = Array.from({ length: BURST - early.length }, (_, i) => post(i % 2 ? two : one, chatBody(), payment));
        const answers = await Promise.all([...early, ...late]);

        const served = answers.filter((a) => a.status === 200).length;
        // Which copies were served: where in the burst (Redis died after the first 200 copies were sent), on which instance, with which receipt.
        const servedAnswers = answers.flatMap((a, i) => (a.status === 200 ? [{ copy: i, afterKill: i >= early.length, instance: i % 2 ? 'two' : 'one', receipt: a.receipt }] : []));
        const servedReads = await readUntilFinal(
          [one, two],
          servedAnswers.map((a) => a.receipt),
          10_000,
        );
        const servedCopies = servedAnswers.map((a, i) => ({
          ...a,
          reads: servedReads[i].receipt ? pick(servedReads[i].receipt, ['status', 'amount_charged_atomic', 'delivery', 'broadcast_at']) : servedReads[i].last,
        }));
        const gained = recipientBalance() - recipientBefore;
        const providerCalls = world.upstreams.openai.requests.length;
        const transfers = world.localnet.sentTransactions().length - sentBefore;
        expectAll(
          {
            'at most one 200': served <= 1,
            'at most one transfer': transfers <= 1,
            'the recipient gains the quote if one was served, else nothing': gained === (served === 1 ? amount : 0n),
            'at most one provider call': providerCalls <= 1,
            'every request answered': answers.every((a) => a.status !== 'error'),
          },
          { served, servedCopies, transfers, gained: gained.toString(), quote: amount.toString(), providerCalls, ...tally(answers) },
        );
      }),
    90_000,
  );

  describe('PostgreSQL restarted while paid requests are in flight', () => {
    let proxy: TcpProxy;
    beforeEach(async () => {
      const admin = new URL(POSTGRES_ADMIN_URL);
      proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    });
    afterEach(() => proxy.close());

    it('every issued receipt reaches a final status, none is lost: whole answers settled, failed ones not charged, and the recipient gains exactly what the settled receipts charged', async () => {
      const database = await createTestDatabase();
      const viaProxy = new URL(database.url);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      const gateway = await startPaidGateway(world, {
        ...RACE_ENV,
        DATABASE_URL: viaProxy.toString(),
        REDIS_URL: redis.url,
        GW_REQUEST_TIMEOUT_SECS: '30',
        GW_SETTLEMENT_CONFIRM_SECS: '10',
      });
      try {
        const payers = Array.from({ length: 10 }, () => fundedPayer(world));
        const bodies = payers.map((_, i) => chatBody({ stream: i % 2 === 0 }));
        const quotes = await Promise.all(bodies.map((body) => quote(gateway, body)));
        const recipientBefore = recipientBalance();
        world.upstreams.openai.setDefault({ kind: 'reply', chunkDelayMs: 200 });

        const landedBefore = world.localnet.sentTransactions().length;
        const inFlight = payers.map((payer, i) => post(gateway, bodies[i], specPaymentHeader(world, quotes[i].header, { payer })));
        // All ten verified, claimed, receipted and handed to the provider; the first chunks (and broadcasts) follow.
        await within(world.upstreams.openai.arrived(payers.length - 1), 20_000, 'all ten paid requests reaching the provider');
        // The outage comes once some payments were broadcast (their outcomes meet it), maybe before others were.
        const deadline = Date.now() + 10_000;
        while (world.localnet.sentTransactions().length - landedBefore < 3 && Date.now() < deadline) await sleep(10);
        proxy.cut();
        proxy.refuse(true);
        await sleep(3_000);
        proxy.refuse(false);
        const answers = await Promise.all(inFlight);

        const reads = await readUntilFinal(
          [gateway],
          answers.map((a) => a.receipt),
          30_000,
        );

        const settledCharge = reads.reduce((sum, { receipt }) => sum + (receipt?.status === 'settled' ? BigInt(receipt.amount_charged_atomic) : 0n), 0n);
        const gained = recipientBalance() - recipientBefore;
        expectAll(
          {
            // A payment broadcast before the outage is never un-charged by it; one whose broadcast
            // could not be recorded is not sent (nothing charged). Either way its receipt says so.
            'payments broadcast before the outage were served': answers.filter((a) => a.status === 200 && (!a.body.includes('"error"') || a.body.includes('[DONE]'))).length >= 3,
            'every whole answer is settled for its quote': answers.every(
              (a, i) => !whole(a, bodies[i].stream === true) || (reads[i].receipt?.status === 'settled' && reads[i].receipt?.amount_charged_atomic === quotes[i].amount.toString()),
            ),
            'every answer that failed is not charged': answers.every(
              (a, i) => whole(a, bodies[i].stream === true) || (reads[i].receipt?.status === 'not_charged' && reads[i].receipt?.amount_charged_atomic === '0'),
            ),
            'every answer names its receipt': answers.every((a) => a.receipt !== null),
            'every receipt resolves': reads.every((r) => r.receipt !== null),
            'every receipt reads a final status': reads.every((r) => r.receipt !== null && FINAL_STATUSES.includes(r.receipt.status)),
            'the recipient gains what the settled receipts charged': gained === settledCharge,
          },
          {
            gained: gained.toString(),
            settledCharge: settledCharge.toString(),
            requests: answers.map((a, i) => ({
              stream: bodies[i].stream,
              status: a.status,
              ...(a.status === 200 ? {} : { body: a.body.slice(0, 300) }),
              quote: quotes[i].amount.toString(),
              receipt: reads[i].receipt ? pick(reads[i].receipt, ['status', 'amount_charged_atomic', 'delivery', 'broadcast_at']) : reads[i].last,
            })),
          },
        );
      } finally {
        world.upstreams.openai.setDefault({ kind: 'reply' });
        await gateway.close();
        await database.drop();
      }
    }, 90_000);
  });
});

/** A whole answer: a JSON 200, or a stream that ended with [DONE]. */
function whole(answer: { status: number | 'error'; body: string }, stream: boolean): boolean {
  return answer.status === 200 && (!stream || answer.body.trimEnd().endsWith('data: [DONE]'));
}

/**
 * Reads receipts (from whichever instance answers) until each status is final or `timeoutMs` is
 * over; never throws, the caller asserts. While storage is down the route may answer 503 or a
 * receipt still read `pending`: both are read again.
 */
function readUntilFinal(gateways: RunningGateway[], paths: Array<string | null>, timeoutMs: number): Promise<ReceiptRead[]> {
  return readReceiptsUntil(gateways, paths, (receipt) => FINAL_STATUSES.includes(receipt.status), timeoutMs);
}

function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}

async function within<T>(promise: Promise<T>, timeoutMs: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${timeoutMs} ms: ${label}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
