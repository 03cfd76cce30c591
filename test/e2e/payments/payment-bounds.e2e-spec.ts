import { decodePaymentRequiredHeader } from '../../../libs/x402';
import type { Keypair } from '@solana/web3.js';
import type { RunningGateway } from '../../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, postChat, quote, specPaymentHeader, type SpecPayment } from '../../support/paid-gateway';
import { paymentInstructions, transferChecked, type PaymentParties } from '../../support/payment-transactions';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';
import { changeSince, drainUsdc, fundedPayer, sleep, snapshot, until } from '../../support/settlement-probes';
import { useSettlementWorld } from '../../support/settlement-world';

/**
 * The bounds that keep an accepted payment payable and the gateway's sponsored fees affordable
 * (docs/decisions.md, "Money moves exactly once (2 of 2)"), black box on the local chain: the
 * sponsorship bounds per payment, per wallet and client address, and globally per window; the
 * blockhash's life at acceptance and before the first content; the in-flight exposure of one
 * source token account, on one instance and across two sharing Redis.
 */

const NOT_SPONSORED = /^the gateway does not sponsor this payment's network fee \(.+\); pay the fee yourself/;
/** A sponsored payment's fee with the test client's compute budget: two signatures and 20,000 units at 1 micro-lamport. */
const SPONSORED_FEE = 10_001;
const WINDOW_SECS = 3;

interface ErrorBody {
  error: { type: string; message: string };
}

describe('payment bounds on the local chain', () => {
  const suite = useSettlementWorld();
  const world = () => suite.world;

  const pay = async (gateway: RunningGateway, payer: Keypair, options: SpecPayment = {}, body = chatBody()): Promise<Response> => {
    const { header } = await quote(gateway, body);
    return postChat(gateway, body, { 'payment-signature': specPaymentHeader(world(), header, { payer, ...options }) });
  };
  const refusal = async (res: Response): Promise<ErrorBody['error'] & { status: number }> => ({ status: res.status, ...((await res.json()) as ErrorBody).error });
  /** Waits for the start of a fresh sponsorship window, so a test's steps all fall in one. */
  const freshWindow = async (): Promise<void> => {
    const windowMs = WINDOW_SECS * 1000;
    await sleep(windowMs - (Date.now() % windowMs) + 50);
  };
  const advertisedFeePayer = async (gateway: RunningGateway): Promise<string | undefined> => (await quote(gateway, chatBody())).header.accepts[0].extra.feePayer;
  const healthStatus = async (gateway: RunningGateway): Promise<string> => ((await (await fetch(`${gateway.url}/health`)).json()) as { status: string }).status;
  const metric = async (gateway: RunningGateway, name: string): Promise<string[]> => {
    const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
    return text.split('\n').filter((line) => line.startsWith(name));
  };

  describe('sponsored fees', () => {
    it('a sponsored priority fee above GW_SPONSOR_MAX_PRIORITY_LAMPORTS is a 402 before any provider call; the same fee paid by the client is served', async () => {
      const gateway = await suite.start({});
      const payer = fundedPayer(world());
      const { amount } = await quote(gateway, chatBody());
      // 20,000 units at 1,000,000 micro-lamports: 20,000 lamports of priority fee, twice the default bound.
      const costly = (parties: PaymentParties) => paymentInstructions(transferChecked(parties, { amount }), 1_000_000n);
      const before = snapshot(world(), payer);
      const calls = suite.providerRequests();

      const sponsored = await pay(gateway, payer, { layout: 'sponsored', instructions: costly });
      // An x402 client reads why in a fresh challenge, in @x402/svm's words.
      expect(decodePaymentRequiredHeader(sponsored.headers.get('payment-required') as string).error).toBe('invalid_exact_svm_fee_payer_not_managed_by_facilitator');
      expect(await refusal(sponsored)).toEqual({ status: 402, type: 'invalid_payment', message: expect.stringMatching(NOT_SPONSORED), code: 'payment.fee_not_sponsored', param: null });
      expect(suite.providerRequests()).toBe(calls);
      expect(changeSince(world(), payer, before)).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });

      const clientPaid = await pay(gateway, payer, { layout: 'client-paid', instructions: costly });
      expect(clientPaid.status).toBe(200);
      expect(changeSince(world(), payer, before)).toEqual({ payer: -amount, recipient: amount, feePayerLamports: 0n, landed: 1 });
    });

    it('the per-wallet and per-client bounds bite within a window and reset when it turns', async () => {
      // Room for two sponsored payments per wallet and per client address, none for a third.
      const gateway = await suite.start({ GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR: String(2 * SPONSORED_FEE + 1), GW_SPONSOR_WINDOW_SECS: String(WINDOW_SECS) });
      const [first, second] = [fundedPayer(world()), fundedPayer(world())];
      await freshWindow();

      expect((await pay(gateway, first, { layout: 'sponsored' })).status).toBe(200);
      expect((await pay(gateway, first, { layout: 'sponsored' })).status).toBe(200);
      const overWallet = await refusal(await pay(gateway, first, { layout: 'sponsored' }));
      expect(overWallet).toEqual({ status: 402, type: 'invalid_payment', message: expect.stringMatching(/this wallet has used its sponsored fees/), code: 'payment.fee_not_sponsored', param: null });
      // Another wallet from the same client address meets the client's bound.
      const overClient = await refusal(await pay(gateway, second, { layout: 'sponsored' }));
      expect(overClient).toEqual({ status: 402, type: 'invalid_payment', message: expect.stringMatching(/this client has used its sponsored fees/), code: 'payment.fee_not_sponsored', param: null });
      // Paying the fee itself is always accepted.
      expect((await pay(gateway, first, { layout: 'client-paid' })).status).toBe(200);

      await freshWindow();
      expect((await pay(gateway, first, { layout: 'sponsored' })).status).toBe(200);
    });

    it('past the global bound quotes lose feePayer, /health is degraded and the metric shows it, until the window turns', async () => {
      const gateway = await suite.start({ GW_SPONSOR_LAMPORTS_PER_HOUR: String(2 * SPONSORED_FEE + 100), GW_SPONSOR_WINDOW_SECS: String(WINDOW_SECS), GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
      const payer = fundedPayer(world());
      await freshWindow();
      expect(await advertisedFeePayer(gateway)).toBe(world().feePayer.publicKey.toBase58());
      const before = snapshot(world(), payer);

      expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(200);
      expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(200);
      // Less than one sponsored fee is left: nothing more is sponsored.
      expect(await advertisedFeePayer(gateway)).toBeUndefined();
      expect(await healthStatus(gateway)).toBe('degraded');
      expect(await metric(gateway, 'gw_sponsorship_exhausted')).toEqual(['gw_sponsorship_exhausted 1']);
      expect(await metric(gateway, 'gw_sponsorship_window_lamports')).toEqual([`gw_sponsorship_window_lamports ${2 * SPONSORED_FEE}`]);
      expect(await metric(gateway, 'gw_fee_payer_balance_lamports')).toEqual([
        `gw_fee_payer_balance_lamports{fee_payer="${world().feePayer.publicKey.toBase58()}"} ${world().localnet.solBalance(world().feePayer.publicKey)}`,
      ]);
      const overGlobal = await refusal(await pay(gateway, payer, { layout: 'sponsored' }));
      expect(overGlobal).toEqual({ status: 402, type: 'invalid_payment', message: expect.stringMatching(/sponsored all the fees it will this hour/), code: 'payment.fee_not_sponsored', param: null });
      expect((await pay(gateway, payer, { layout: 'client-paid' })).status).toBe(200);
      // Two sponsored fees paid by the fee payer, no more.
      expect(changeSince(world(), payer, before).feePayerLamports).toBe(BigInt(-2 * SPONSORED_FEE));

      await freshWindow();
      expect(await advertisedFeePayer(gateway)).toBe(world().feePayer.publicKey.toBase58());
      expect(await healthStatus(gateway)).toBe('ok');
      expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(200);
    });

    it('a sponsored payment that lands with an error (the payer emptied its account, preflight saw older state) keeps its fee charged against the bounds', async () => {
      // Room for two sponsored fees per wallet: the failed landing is the first.
      const windowSecs = 30;
      const gateway = await suite.start({ GW_SOLANA_RPC_URL: suite.proxy.url, GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR: String(2 * SPONSORED_FEE + 1), GW_SPONSOR_WINDOW_SECS: String(windowSecs) });
      const body = chatBody();
      const { header, amount } = await quote(gateway, body);
      const payer = fundedPayer(world(), amount);
      // Less than 10 s left in the window: wait for the next, so the three steps share one.
      if (windowSecs * 1000 - (Date.now() % (windowSecs * 1000)) < 10_000) await sleep(windowSecs * 1000 - (Date.now() % (windowSecs * 1000)) + 50);
      const before = snapshot(world(), payer);
      suite.proxy.mode({ kind: 'no-preflight' });
      world().upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 800 });

      const answer = postChat(gateway, body, { 'payment-signature': specPaymentHeader(world(), header, { payer, layout: 'sponsored' }) });
      await until(() => world().upstreams.openai.requests.length > 0, 5_000, 'the provider was called');
      const drain = await drainUsdc(world(), payer);
      const res = await answer;
      expect(res.status).toBe(500);
      expect(((await res.json()) as ErrorBody).error.type).toBe('settlement_failed');
      // It landed with an error: no USDC moved, the fee payer paid the fee.
      expect(changeSince(world(), payer, before, [drain.signature])).toEqual({ payer: -amount, recipient: 0n, feePayerLamports: BigInt(-SPONSORED_FEE), landed: 1 });

      suite.proxy.mode({ kind: 'pass' });
      world().localnet.fundUsdc(payer.publicKey, 2n * amount);
      expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(200);
      // Two fees counted (the failed one and this one): a third is past the wallet's bound.
      expect(await refusal(await pay(gateway, payer, { layout: 'sponsored' }))).toEqual({
        status: 402,
        type: 'invalid_payment',
        message: expect.stringMatching(/this wallet has used its sponsored fees/),
        code: 'payment.fee_not_sponsored',
        param: null,
      });
    });

    it('quotes below GW_SPONSOR_MIN_ATOMIC advertise no fee payer, and a sponsored payment of one is refused', async () => {
      const gateway = await suite.start({ GW_SPONSOR_MIN_ATOMIC: '1000000' });
      const payer = fundedPayer(world());
      expect(await advertisedFeePayer(gateway)).toBeUndefined();
      expect(await refusal(await pay(gateway, payer, { layout: 'sponsored' }))).toEqual({
        status: 402,
        type: 'invalid_payment',
        message: expect.stringMatching(NOT_SPONSORED),
        code: 'payment.fee_not_sponsored',
        param: null,
      });
      expect((await pay(gateway, payer, { layout: 'client-paid' })).status).toBe(200);
    });
  });

  describe('blockhash life', () => {
    afterEach(() => world().localnet.expireBlockhash());

    it('a payment whose blockhash has less than GW_MIN_BLOCKHASH_LIFE_SECS left is a 402 telling the client to re-sign; a fresh one is served', async () => {
      // The default 2 s poll: the payment is judged against the block height of the moment, not the last poll's.
      const gateway = await suite.start({});
      const payer = fundedPayer(world());
      expect((await pay(gateway, payer)).status).toBe(200);
      const before = snapshot(world(), payer);
      // 40 blocks left: 16 s, under the 20 s default.
      const { lastValidBlockHeight } = world().localnet.latestBlockhash();
      world().localnet.advanceSlots(lastValidBlockHeight - world().localnet.slot - 40);
      await sleep(150);

      const shortLived = await refusal(await pay(gateway, payer));
      expect(shortLived).toEqual({
        status: 402,
        type: 'invalid_payment',
        message: expect.stringMatching(/^payment transaction blockhash expires in 1\d s, less than the 20 s a payment needs; sign a new payment/),
        code: 'payment.blockhash_short_lived',
        param: null,
      });
      expect(changeSince(world(), payer, before)).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });

      world().localnet.expireBlockhash();
      expect((await pay(gateway, payer)).status).toBe(200);
    });

    it('a payment whose blockhash is about to expire before the first content is released: nothing charged', async () => {
      const gateway = await suite.start({ GW_BLOCKHASH_POLL_MS: '100' });
      const payer = fundedPayer(world());
      const before = snapshot(world(), payer);
      world().upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 3_000 });
      const answer = pay(gateway, payer);
      await until(() => world().upstreams.openai.requests.length > 0, 5_000, 'the provider was called');
      // 5 blocks left (2 s): under the margin a transfer needs to land.
      const { lastValidBlockHeight } = world().localnet.latestBlockhash();
      world().localnet.advanceSlots(lastValidBlockHeight - world().localnet.slot - 5);

      const res = await answer;
      expect(await refusal(res)).toEqual({
        status: 402,
        type: 'invalid_payment',
        message: expect.stringMatching(/blockhash was about to expire before the answer began; nothing was charged/),
        code: 'payment.expired_before_answer',
        param: null,
      });
      expect(changeSince(world(), payer, before)).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });
    });
  });

  describe('in-flight exposure of one source token account', () => {
    /** N paid requests from one payer at once, whose balance covers N-1 of them; the provider waits so that none settles before all are accepted. */
    const race = async (gateways: RunningGateway[], count: number): Promise<{ statuses: number[]; moved: bigint; amount: bigint; refusals: unknown[] }> => {
      const body = chatBody();
      const { header, amount } = await quote(gateways[0], body);
      const payer = fundedPayer(world(), BigInt(count - 1) * amount + amount / 2n);
      const before = snapshot(world(), payer);
      world().upstreams.openai.script(...Array.from({ length: count }, () => ({ kind: 'reply' as const, firstByteDelayMs: 1_000 })));
      const headers = Array.from({ length: count }, () => specPaymentHeader(world(), header, { payer }));
      const answers = await Promise.all(headers.map((payment, i) => postChat(gateways[i % gateways.length], body, { 'payment-signature': payment })));
      const refusals = await Promise.all(answers.filter((res) => res.status === 429).map(async (res) => ({ retryAfter: res.headers.get('retry-after'), ...((await res.json()) as ErrorBody) })));
      return { statuses: answers.map((res) => res.status).sort(), moved: -changeSince(world(), payer, before).payer, amount, refusals };
    };

    it('N parallel payments whose balance covers N-1: N-1 answers and one 429, N-1 transfers', async () => {
      const gateway = await suite.start({});
      const { statuses, moved, amount, refusals } = await race([gateway], 4);
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(refusals).toEqual([{ retryAfter: '1', error: { type: 'rate_limit_exceeded', message: 'Too many requests. Please slow down.', code: 'rate_limit.payment_in_flight', param: null } }]);
      expect(moved).toBe(3n * amount);
    });

    const withRedis = serviceAvailable('redis') ? it : it.skip;
    describe('across two instances', () => {
      let redis: PrivateRedis | undefined;
      afterEach(async () => {
        await suite.closeGateways();
        await redis?.close();
      });

      withRedis('sharing Redis: the same N-1 answers and one 429', async () => {
        redis = await startPrivateRedis();
        const gateways = await Promise.all([suite.start({ REDIS_URL: redis.url }), suite.start({ REDIS_URL: redis.url })]);
        const { statuses, moved, amount } = await race(gateways, 4);
        expect(statuses).toEqual([200, 200, 200, 429]);
        expect(moved).toBe(3n * amount);
      });

      withRedis('sharing Redis: sponsored fees charged on one instance spend the global bound of both; the other stops advertising within a refresh', async () => {
        redis = await startPrivateRedis();
        const env = { REDIS_URL: redis.url, GW_SPONSOR_LAMPORTS_PER_HOUR: String(2 * SPONSORED_FEE + 100), GW_SPONSOR_WINDOW_SECS: '60' };
        const [first, second] = await Promise.all([suite.start(env), suite.start(env)]);
        const payer = fundedPayer(world());
        // Less than 15 s left in the window: wait for the next, so the steps share one.
        if (60_000 - (Date.now() % 60_000) < 15_000) await sleep(60_000 - (Date.now() % 60_000) + 50);
        expect(await advertisedFeePayer(second)).toBeDefined();

        expect((await pay(first, payer, { layout: 'sponsored' })).status).toBe(200);
        expect((await pay(second, payer, { layout: 'sponsored' })).status).toBe(200);
        expect(await advertisedFeePayer(second)).toBeUndefined();
        expect(await refusal(await pay(first, payer, { layout: 'sponsored' }))).toEqual({
          status: 402,
          type: 'invalid_payment',
          message: expect.stringMatching(/sponsored all the fees it will this hour/),
          code: 'payment.fee_not_sponsored',
          param: null,
        });
        await until(async () => (await advertisedFeePayer(first)) === undefined, 5_000, 'the first instance sees the bound reached');
      });
    });
  });
});
