import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createApproveInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, LAMPORTS_PER_SOL, PublicKey, TransactionInstruction } from '@solana/web3.js';
import type { RunningGateway } from '../../../src/gateway';
import { CHAT_PATH, chatBody, postChat, quote, specPaymentHeader, type SpecPayment } from '../../support/paid-gateway';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked, type PaymentParties } from '../../support/payment-transactions';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';
import { changeSince, errorEvents, fundedPayer, rpc, sleep, snapshot, sseDataOf, streamedContent, until } from '../../support/settlement-probes';
import { useSettlementWorld } from '../../support/settlement-world';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy';

/**
 * Attacks on the three payment bounds (docs/decisions.md, "Money moves exactly once (2 of 2)") on
 * the local chain, from its adversarial reviews: each asserts the behaviour the bounds promise.
 * Those that found a defect when written are regressions now; "(defended)" marks those that did not.
 * Unit-level ones: src/modules/payments/application/fee-sponsorship.attack.spec.ts and the Redis
 * exposure ledger's in src/adapters/redis/redis-exposure-ledger.int-spec.ts.
 */

/** A sponsored payment's fee with the test client's compute budget: two signatures and 20,000 units at 1 micro-lamport. */
const SPONSORED_FEE = 10_001;
const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const COMPUTE_BUDGET = new PublicKey('ComputeBudget111111111111111111111111111111');

interface ErrorBody {
  error: { type: string; message: string };
}

describe('attacks on the payment bounds', () => {
  const suite = useSettlementWorld();
  const world = () => suite.world;

  const pay = async (gateway: RunningGateway, payer: Keypair, options: SpecPayment = {}, body = chatBody()): Promise<Response> => {
    const { header } = await quote(gateway, body);
    return postChat(gateway, body, { 'payment-signature': specPaymentHeader(world(), header, { payer, ...options }) });
  };
  const refusal = async (res: Response): Promise<ErrorBody['error'] & { status: number }> => {
    const text = await res.text();
    try {
      const parsed = JSON.parse(text) as Partial<ErrorBody>;
      return parsed.error ? { status: res.status, ...parsed.error } : { status: res.status, type: 'answer', message: '' };
    } catch {
      return { status: res.status, type: 'unparsed', message: text.slice(0, 300) };
    }
  };
  const advertisedFeePayer = async (gateway: RunningGateway): Promise<string | undefined> => (await quote(gateway, chatBody())).header.accepts[0].extra.feePayer;
  /** Waits for a window with at least `needMs` left, so a test's steps all fall in one. */
  const windowWithRoom = async (windowSecs: number, needMs: number): Promise<void> => {
    const windowMs = windowSecs * 1000;
    if (windowMs - (Date.now() % windowMs) < needMs) await sleep(windowMs - (Date.now() % windowMs) + 50);
  };
  /** Signs and sends `instructions` from `signer` (client-paid) straight to the chain. */
  const sendOwn = async (signer: Keypair, instructions: TransactionInstruction[]): Promise<string> => {
    const parties = { mint: world().mint, payTo: world().recipient.publicKey, payer: signer, gatewayFeePayer: world().feePayer, recentBlockhash: world().localnet.latestBlockhash().blockhash };
    const memo = new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [], data: Buffer.from(randomBytes(16).toString('hex')) });
    return rpc<string>(world().localnet.url, 'sendTransaction', [toBase64(paymentTransaction(parties, { instructions: [...instructions, memo] })), { encoding: 'base64' }]);
  };
  /** An owner holding `ownerBalance` who lets a fresh delegate (1 SOL, no tokens) spend `allowance` of it. */
  const delegation = async (ownerBalance: bigint, allowance: bigint): Promise<{ owner: Keypair; source: PublicKey; delegate: Keypair }> => {
    const owner = fundedPayer(world(), ownerBalance);
    const source = getAssociatedTokenAddressSync(world().mint, owner.publicKey);
    const delegate = Keypair.generate();
    world().localnet.airdrop(delegate.publicKey, BigInt(LAMPORTS_PER_SOL));
    await sendOwn(owner, [createApproveInstruction(source, delegate.publicKey, owner.publicKey, allowance)]);
    return { owner, source, delegate };
  };

  describe('blockhash life', () => {
    afterEach(() => world().localnet.expireBlockhash());

    it('a blockhash no poll returned, with 5 blocks (2 s) left, is refused 402 like any short-lived one, before any provider call', async () => {
      // Polls every 10 s (the same holds at the default 2 s for any blockhash made between two polls:
      // on a real cluster that is four blockhashes in five, any of which may be up to 150 blocks old).
      const gateway = await suite.start({ GW_BLOCKHASH_POLL_MS: '10000' });
      const payer = fundedPayer(world());
      const body = chatBody();
      const { header } = await quote(gateway, body);
      await sleep(300); // the bootstrap poll is in
      // A new blockhash the tracker never saw, then 145 blocks: 5 blocks (2 s) of life left.
      world().localnet.expireBlockhash();
      const { lastValidBlockHeight } = world().localnet.latestBlockhash();
      world().localnet.advanceSlots(lastValidBlockHeight - world().localnet.slot - 5);
      const before = snapshot(world(), payer);
      const calls = suite.providerRequests();

      const res = await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world(), header, { payer }) });
      expect({ ...(await refusal(res)), providerCalls: suite.providerRequests() - calls }).toEqual({
        status: 402,
        type: 'invalid_payment',
        message: expect.stringMatching(/^payment transaction blockhash expires in \d s, less than the 20 s a payment needs/),
        code: 'payment.blockhash_short_lived',
        param: null,
        providerCalls: 0,
      });
      expect(changeSince(world(), payer, before)).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });
    });

    it('a blockhash the chain does not know (from the future, or made up) is refused before any provider call (defended)', async () => {
      const gateway = await suite.start({});
      const payer = fundedPayer(world());
      const body = chatBody();
      const { header, amount } = await quote(gateway, body);
      const calls = suite.providerRequests();
      const parties = { mint: world().mint, payTo: world().recipient.publicKey, payer, gatewayFeePayer: world().feePayer, recentBlockhash: Keypair.generate().publicKey.toBase58() };
      const transaction = paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties, { amount })) });
      const genuine = JSON.parse(Buffer.from(specPaymentHeader(world(), header, { payer }), 'base64').toString('utf8')) as { payload: { transaction: string } };
      genuine.payload.transaction = toBase64(transaction);
      const res = await postChat(gateway, body, { 'payment-signature': Buffer.from(JSON.stringify(genuine)).toString('base64') });
      expect((await refusal(res)).status).toBe(402);
      expect(suite.providerRequests()).toBe(calls);
    });
  });

  describe('in-flight exposure', () => {
    it("a delegate's concurrent payments from one source are bounded by what the delegate may spend, not the source's whole balance", async () => {
      const gateway = await suite.start({});
      const body = chatBody();
      const { header, amount } = await quote(gateway, body);
      // The owner holds ten payments' worth and lets a delegate spend one payment's worth.
      const { owner, source, delegate } = await delegation(10n * amount, amount);
      const before = snapshot(world(), owner);
      const calls = suite.providerRequests();
      world().upstreams.openai.script(...Array.from({ length: 3 }, () => ({ kind: 'reply' as const, firstByteDelayMs: 1_000 })));

      const delegated = () =>
        specPaymentHeader(world(), header, { payer: delegate, instructions: (parties) => paymentInstructions(transferChecked(parties, { amount, source, authority: delegate.publicKey })) });
      const answers = await Promise.all([delegated(), delegated(), delegated()].map((payment) => postChat(gateway, body, { 'payment-signature': payment })));
      const statuses = answers.map((res) => res.status).sort();
      // Only one of the three can ever land: the other two must not reach a provider.
      expect({ statuses, providerCalls: suite.providerRequests() - calls, moved: changeSince(world(), owner, before).payer }).toEqual({ statuses: [200, 429, 429], providerCalls: 1, moved: -amount });
    });

    it("a delegate's second stream, accepted past its allowance, must not stream an answer that is never paid (preflight saw older state, as two transfers in one slot do on a cluster)", async () => {
      const gateway = await suite.start({ GW_SOLANA_RPC_URL: suite.proxy.url });
      const body = chatBody({ stream: true });
      const { header, amount } = await quote(gateway, body);
      const { owner, source, delegate } = await delegation(10n * amount, amount);
      const before = snapshot(world(), owner);
      suite.proxy.mode({ kind: 'no-preflight' });
      world().upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 600 }, { kind: 'reply', firstByteDelayMs: 900 });

      const delegated = () =>
        specPaymentHeader(world(), header, { payer: delegate, instructions: (parties) => paymentInstructions(transferChecked(parties, { amount, source, authority: delegate.publicKey })) });
      const answers = await Promise.all([delegated(), delegated()].map((payment) => postChat(gateway, body, { 'payment-signature': payment })));
      const streams = await Promise.all(answers.map(async (res) => ({ status: res.status, data: res.status === 200 ? sseDataOf(await res.text()) : [] })));
      const unpaid = streams.filter((s) => s.status === 200 && errorEvents(s.data).some((e) => e.type === 'settlement_failed') && streamedContent(s.data).length > 0);
      // One transfer moved the allowance; an answer streamed for the other is an answer given away.
      expect({ moved: changeSince(world(), owner, before).payer, answersGivenAway: unpaid.length }).toEqual({ moved: -amount, answersGivenAway: 0 });
    });

    it('two token accounts signed for by one wallet are two sources: each is bounded by its own balance (defended)', async () => {
      const gateway = await suite.start({});
      const body = chatBody();
      const { header, amount } = await quote(gateway, body);
      const owner = fundedPayer(world(), amount + amount / 2n);
      const sourceA = getAssociatedTokenAddressSync(world().mint, owner.publicKey);
      // A second account the same wallet may spend all of (as its delegate), with its own balance.
      const other = fundedPayer(world(), amount + amount / 2n);
      const sourceB = getAssociatedTokenAddressSync(world().mint, other.publicKey);
      await sendOwn(other, [createApproveInstruction(sourceB, owner.publicKey, other.publicKey, 10n * amount)]);
      world().upstreams.openai.script(...Array.from({ length: 4 }, () => ({ kind: 'reply' as const, firstByteDelayMs: 800 })));
      const from = (source: PublicKey) => specPaymentHeader(world(), header, { payer: owner, instructions: (parties) => paymentInstructions(transferChecked(parties, { amount, source })) });
      const answers = await Promise.all([from(sourceA), from(sourceA), from(sourceB), from(sourceB)].map((payment) => postChat(gateway, body, { 'payment-signature': payment })));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 429, 429]);
    });

    const withRedis = serviceAvailable('redis') ? it : it.skip;
    describe('Redis lost mid-flight', () => {
      let redis: PrivateRedis | undefined;
      let link: TcpProxy | undefined;
      afterEach(async () => {
        await suite.closeGateways();
        await link?.close();
        await redis?.close();
        link = undefined;
        redis = undefined;
      });

      withRedis('one instance: a payment accepted through Redis still counts against its source once Redis is gone (no second provider call for a payment that cannot be paid)', async () => {
        redis = await startPrivateRedis();
        const gateway = await suite.start({ REDIS_URL: redis.url });
        const body = chatBody();
        const { header, amount } = await quote(gateway, body);
        // The balance covers one payment and a half.
        const payer = fundedPayer(world(), amount + amount / 2n);
        const before = snapshot(world(), payer);
        world().upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 2_500 }, { kind: 'reply', firstByteDelayMs: 500 });
        const calls = suite.providerRequests();

        const first = postChat(gateway, body, { 'payment-signature': specPaymentHeader(world(), header, { payer }) });
        await until(() => suite.providerRequests() > calls, 5_000, 'the first payment reached its provider');
        await redis.kill();
        const second = await refusal(await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world(), header, { payer }) }));
        const firstStatus = (await first).status;
        expect({ first: firstStatus, second: second.status, providerCalls: suite.providerRequests() - calls }).toEqual({ first: 200, second: 429, providerCalls: 1 });
        expect(changeSince(world(), payer, before).payer).toBe(-amount);
      });

      withRedis(
        'a payment that landed while Redis was briefly unreachable stops counting as in flight: its payer is not locked out once Redis is back',
        async () => {
          redis = await startPrivateRedis();
          link = await startTcpProxy({ host: '127.0.0.1', port: redis.port });
          const gateway = await suite.start({ REDIS_URL: `redis://127.0.0.1:${link.port}` });
          const body = chatBody();
          const { header, amount } = await quote(gateway, body);
          // Two payments and a half: after the first lands, the second is covered.
          const payer = fundedPayer(world(), 2n * amount + amount / 2n);
          const before = snapshot(world(), payer);
          world().upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 1_000 });

          const first = postChat(gateway, body, { 'payment-signature': specPaymentHeader(world(), header, { payer }) });
          await until(() => world().upstreams.openai.requests.length > 0, 5_000, 'the first payment reached its provider');
          // Redis unreachable (not restarted: it keeps the debit) while the first payment lands.
          link.refuse(true);
          link.cut();
          expect((await first).status).toBe(200);
          expect(changeSince(world(), payer, before).payer).toBe(-amount);
          link.refuse(false);
          await sleep(6_000); // the client reconnects (its retry delay grows by 250 ms a try)

          const second = await refusal(await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world(), header, { payer }) }));
          expect(second.status).toBe(200);
        },
        30_000,
      );
    });
  });

  describe('bounded sponsorship', () => {
    const withRedis = serviceAvailable('redis') ? it : it.skip;
    describe('Redis lost mid-window', () => {
      let redis: PrivateRedis | undefined;
      afterEach(async () => {
        await suite.closeGateways();
        await redis?.close();
        redis = undefined;
      });

      withRedis(
        'a fee charged to the memory fallback while Redis was unreachable, released after it is back, does not refund a charge Redis never had (the wallet bound holds)',
        async () => {
          redis = await startPrivateRedis();
          const link = await startTcpProxy({ host: '127.0.0.1', port: redis.port });
          // Room for two sponsored fees per wallet and client address.
          const bounds = { GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR: String(2 * SPONSORED_FEE + 1), GW_SPONSOR_WINDOW_SECS: '600' };
          const direct = await suite.start({ REDIS_URL: redis.url, ...bounds });
          const partitioned = await suite.start({ REDIS_URL: `redis://127.0.0.1:${link.port}`, GW_BLOCKHASH_POLL_MS: '100', ...bounds });
          const payer = fundedPayer(world());
          const before = snapshot(world(), payer);
          try {
            expect((await pay(direct, payer, { layout: 'sponsored' })).status).toBe(200);

            // The second instance loses Redis; a sponsored payment is charged to its memory ledger and waits for its provider.
            link.refuse(true);
            link.cut();
            world().upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 15_000 });
            const released = pay(partitioned, payer, { layout: 'sponsored' });
            await until(() => world().upstreams.openai.requests.length > 1, 5_000, 'the provider was called');
            // Redis is back (with its counters) before that payment is released as its blockhash runs out.
            link.refuse(false);
            await until(async () => (await fetch(`${partitioned.url}/health/ready`)).status === 200, 15_000, 'the instance reconnected to Redis');
            const { lastValidBlockHeight } = world().localnet.latestBlockhash();
            world().localnet.advanceSlots(lastValidBlockHeight - world().localnet.slot - 5);
            expect((await released).status).toBe(402);
            world().localnet.expireBlockhash();

            // One more sponsored fee fits the wallet's bound; a third must not.
            expect((await pay(direct, payer, { layout: 'sponsored' })).status).toBe(200);
            const third = await pay(direct, payer, { layout: 'sponsored' });
            expect({ status: third.status, paidFees: -changeSince(world(), payer, before).feePayerLamports }).toEqual({ status: 402, paidFees: BigInt(2 * SPONSORED_FEE) });
          } finally {
            await link.close();
          }
        },
        30_000,
      );

      withRedis('one instance: the global bound spent through Redis stays spent when Redis goes away (the fee payer pays no more than the bound per window)', async () => {
        redis = await startPrivateRedis();
        const windowSecs = 60;
        const gateway = await suite.start({ REDIS_URL: redis.url, GW_SPONSOR_LAMPORTS_PER_HOUR: String(2 * SPONSORED_FEE + 100), GW_SPONSOR_WINDOW_SECS: String(windowSecs) });
        const payer = fundedPayer(world());
        await windowWithRoom(windowSecs, 20_000);
        const before = snapshot(world(), payer);

        expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(200);
        expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(200);
        expect(await advertisedFeePayer(gateway)).toBeUndefined();

        await redis.kill();
        await sleep(2_500); // a refresh of the global counter, which now reads the memory fallback
        const advertised = await advertisedFeePayer(gateway);
        const third = await pay(gateway, payer, { layout: 'sponsored' });
        expect({ advertised, third: third.status, feePayerPaid: -changeSince(world(), payer, before).feePayerLamports }).toEqual({
          advertised: undefined,
          third: 402,
          feePayerPaid: BigInt(2 * SPONSORED_FEE),
        });
      });

      withRedis('one instance: a wallet that spent its bound through Redis gets no fresh bound when Redis goes away', async () => {
        redis = await startPrivateRedis();
        const windowSecs = 60;
        const gateway = await suite.start({ REDIS_URL: redis.url, GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR: String(2 * SPONSORED_FEE + 1), GW_SPONSOR_WINDOW_SECS: String(windowSecs) });
        const payer = fundedPayer(world());
        await windowWithRoom(windowSecs, 20_000);
        expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(200);
        expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(200);
        expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(402);
        await redis.kill();
        const afterKill = await refusal(await pay(gateway, payer, { layout: 'sponsored' }));
        expect(afterKill).toEqual({
          status: 402,
          type: 'invalid_payment',
          message: expect.stringMatching(/this (wallet|client) has used its sponsored fees/),
          code: 'payment.fee_not_sponsored',
          param: null,
        });
      });
    });

    it('one client from one address cannot pass the client bound with many wallets, concurrently (defended)', async () => {
      const windowSecs = 60;
      const gateway = await suite.start({ GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR: String(3 * SPONSORED_FEE + 1), GW_SPONSOR_WINDOW_SECS: String(windowSecs) });
      await windowWithRoom(windowSecs, 20_000);
      const payers = Array.from({ length: 8 }, () => fundedPayer(world()));
      const before = snapshot(world(), payers[0]);
      const answers = await Promise.all(payers.map((payer) => pay(gateway, payer, { layout: 'sponsored' })));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 200, 402, 402, 402, 402, 402]);
      expect(changeSince(world(), payers[0], before).feePayerLamports).toBe(BigInt(-3 * SPONSORED_FEE));
    });

    it('the global bound holds against many client addresses and many wallets at once (defended)', async () => {
      const windowSecs = 60;
      const gateway = await suite.start({ GW_SPONSOR_LAMPORTS_PER_HOUR: String(4 * SPONSORED_FEE + 100), GW_SPONSOR_WINDOW_SECS: String(windowSecs) });
      await windowWithRoom(windowSecs, 20_000);
      const body = chatBody();
      const { header } = await quote(gateway, body);
      const payers = Array.from({ length: 10 }, () => fundedPayer(world()));
      const before = snapshot(world(), payers[0]);
      const statuses = await Promise.all(
        payers.map((payer, i) => postFrom(`127.3.0.${i + 1}`, gateway, body, { 'payment-signature': specPaymentHeader(world(), header, { payer, layout: 'sponsored' }) })),
      );
      expect(statuses.sort()).toEqual([200, 200, 200, 200, 402, 402, 402, 402, 402, 402]);
      expect(changeSince(world(), payers[0], before).feePayerLamports).toBe(BigInt(-4 * SPONSORED_FEE));
      expect(await advertisedFeePayer(gateway)).toBeUndefined();
    });

    it('a sponsored payment with the compute-unit limit at its cap and the highest price the bound allows is charged what the fee payer pays (defended)', async () => {
      const windowSecs = 60;
      // Room for exactly one such payment per wallet: 2 x 5,000 + 10,000 of priority.
      const gateway = await suite.start({ GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR: '20000', GW_SPONSOR_WINDOW_SECS: String(windowSecs) });
      await windowWithRoom(windowSecs, 20_000);
      const payer = fundedPayer(world());
      const { amount } = await quote(gateway, chatBody());
      // 200,000 units at 50,000 micro-lamports: exactly 10,000 lamports of priority fee.
      const costly = (parties: PaymentParties) => [computeUnitLimit(200_000), computeUnitPrice(50_000n), transferChecked(parties, { amount })];
      const before = snapshot(world(), payer);
      expect((await pay(gateway, payer, { layout: 'sponsored', instructions: costly })).status).toBe(200);
      expect(changeSince(world(), payer, before).feePayerLamports).toBe(-20_000n);
      // Nothing left for the wallet: even the cheapest sponsored payment is refused.
      expect((await pay(gateway, payer, { layout: 'sponsored' })).status).toBe(402);
    });
  });
});

function computeUnitLimit(units: number): TransactionInstruction {
  const data = Buffer.alloc(5);
  data.writeUInt8(2, 0);
  data.writeUInt32LE(units, 1);
  return new TransactionInstruction({ programId: COMPUTE_BUDGET, keys: [], data });
}

function computeUnitPrice(microLamports: bigint): TransactionInstruction {
  const data = Buffer.alloc(9);
  data.writeUInt8(3, 0);
  data.writeBigUInt64LE(microLamports, 1);
  return new TransactionInstruction({ programId: COMPUTE_BUDGET, keys: [], data });
}

/** A paid chat request from a loopback address of the test's choosing (127/8 all reaches the loopback interface); resolves its status. */
function postFrom(localAddress: string, gateway: RunningGateway, body: unknown, headers: Record<string, string>): Promise<number> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${gateway.url}${CHAT_PATH}`,
      { method: 'POST', localAddress, agent: false, timeout: 15_000, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Attacks on the payment bounds that an adversarial review tried on the local chain, kept as
 * regressions: occupying another payer's source, and using released sponsored payments to get
 * more sponsored fees than the bounds allow.
 */
describe('abusing the payment bounds', () => {
  const suite = useSettlementWorld();

  it("nobody can commit another payer's token account: a transfer from it signed by someone else is refused and holds nothing", async () => {
    const world = suite.world;
    const gateway = await suite.start({});
    const body = chatBody();
    const { header, amount } = await quote(gateway, body);
    const victim = fundedPayer(world, amount);
    const attacker = fundedPayer(world);
    const victimAccount = getAssociatedTokenAddressSync(world.mint, victim.publicKey);
    const before = snapshot(world, victim);

    const occupying = await Promise.all(
      Array.from({ length: 5 }, () =>
        postChat(gateway, body, {
          'payment-signature': specPaymentHeader(world, header, { payer: attacker, instructions: (parties) => paymentInstructions(transferChecked(parties, { amount, source: victimAccount })) }),
        }),
      ),
    );
    expect(occupying.map((res) => res.status)).toEqual([402, 402, 402, 402, 402]);
    // The victim's one payment its balance covers is served.
    expect((await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header, { payer: victim }) })).status).toBe(200);
    expect(changeSince(world, victim, before)).toEqual({ payer: -amount, recipient: amount, feePayerLamports: 0n, landed: 1 });
  });

  it('sponsored payments released before their first content give their fees back, and the bound still holds for the ones served', async () => {
    const world = suite.world;
    // Room for two sponsored fees (10,001 lamports each) per wallet and client.
    const gateway = await suite.start({ GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR: '20003', GW_BREAKER_MIN_REQUESTS: '1000' });
    const payer = fundedPayer(world);
    const before = snapshot(world, payer);
    const body = chatBody();
    const { header, amount } = await quote(gateway, body);
    const sponsoredPayment = () => postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header, { payer, layout: 'sponsored' }) });

    // Every provider fails before answering: each payment is released, its fee never paid.
    world.upstreams.openai.setDefault({ kind: 'status', status: 500 });
    for (let i = 0; i < 4; i++) expect((await sponsoredPayment()).status).toBe(503);
    world.upstreams.openai.setDefault({ kind: 'reply' });
    expect(changeSince(world, payer, before)).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });

    expect((await sponsoredPayment()).status).toBe(200);
    expect((await sponsoredPayment()).status).toBe(200);
    expect((await sponsoredPayment()).status).toBe(402);
    expect(changeSince(world, payer, before)).toEqual({ payer: -2n * amount, recipient: 2n * amount, feePayerLamports: -20_002n, landed: 2 });
  });
});
