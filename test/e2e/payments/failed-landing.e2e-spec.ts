import { Connection, MessageV0, SystemProgram, VersionedTransaction, type Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { decodePaymentResponseHeader } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { a2aCall, a2aPaymentPayload, userMessage, type A2ATaskBody } from '../../support/a2a-client';
import { chatBody, PAID_MODEL, postChat, quote, specPaymentHeader } from '../../support/paid-gateway';
import { postJson, routeQuote, SEARCH_PATH } from '../../support/paid-tools';
import { paymentInstructions, transferChecked } from '../../support/payment-transactions';
import { migratedDataDir } from '../../support/pglite-data-dir';
import { startPrivateRedis, type PrivateRedis } from '../../support/private-redis';
import { serviceAvailable } from '../../support/services';
import { changeSince, drainUsdc, errorEvents, fetchReceipt, fundedPayer, longText, receiptWhen, rpc, sleep, snapshot, sseDataOf, StreamReader, streamedContent } from '../../support/settlement-probes';
import { useSettlementWorld } from '../../support/settlement-world';

/**
 * What a paid call does when its transfer does not land as it should (docs/decisions.md, "A failed
 * landing stops the answer"): one that lands with an error stops the answer within one confirmation
 * poll (the upstream aborted, a stream ended with an error event, a JSON answer withheld, the
 * receipt `failed`); a durable-nonce transfer holds the answer's first content until it has landed,
 * and one that does not land in the confirmation window is a 402 whose answer is kept for a resend.
 */

const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;
/** The sponsored fee of a payment: two signatures, and a priority fee of 1 micro-lamport per unit over 20,000 units (rounded up to 1 lamport). */
const SPONSORED_FEE = 10_001n;
const WORDS = 300;

describe('a paid call whose transfer does not land as it should', () => {
  const suite = useSettlementWorld();

  /** A paid gateway with embedded PGlite receipts, reaching the chain through the suite's fault proxy. */
  const start = async (env: Record<string, string> = {}): Promise<RunningGateway> =>
    suite.start({ GW_STORAGE: undefined, GW_DATA_DIR: await migratedDataDir(), GW_SOLANA_RPC_URL: suite.proxy.url, GW_RECONCILE_INTERVAL_SECS: '1', GW_SHUTDOWN_GRACE_SECS: '1', ...env });

  describe('F2: a transfer that lands with an error stops the answer at once', () => {
    /**
     * The payer empties its account after the gateway accepted its payment, and the node's
     * preflight runs against older state, so the transfer lands with an error (its sponsored fee paid).
     */
    const landsWithAnError = async (stream: boolean) => {
      const { world, proxy } = suite;
      const gateway = await start();
      const body = chatBody({ stream, max_tokens: 2000 });
      const { header, amount } = await quote(gateway, body);
      const payer = fundedPayer(world, amount);
      const payment = specPaymentHeader(world, header, { payer, layout: 'sponsored' });
      const before = snapshot(world, payer);
      // 300 words, one every 20 ms: six seconds if nothing stopped it.
      world.upstreams.openai.script({ kind: 'reply', text: longText(WORDS), firstByteDelayMs: 300, chunkDelayMs: 20 });
      proxy.mode({ kind: 'no-preflight' });

      const answer = postChat(gateway, body, { 'payment-signature': payment });
      await world.upstreams.openai.arrived(0);
      const drain = await drainUsdc(world, payer);
      const res = await answer;
      const path = res.headers.get('x-gw-receipt');
      if (stream) {
        expect(res.status).toBe(200);
        const raw = await new StreamReader(res).rest();
        const data = sseDataOf(raw);
        expect(data).not.toContain('[DONE]');
        expect(errorEvents(data)).toEqual([expect.objectContaining({ type: 'settlement_failed', code: 'payment.settlement_reverted' })]);
        // At most one confirmation poll (250 ms, about a dozen words here) went out after the failed landing.
        const words = streamedContent(data).split(' ').filter(Boolean).length;
        expect(words).toBeLessThan(WORDS / 5);
      } else {
        expect(res.status).toBe(500);
        expect(await res.json()).toEqual({ error: { type: 'settlement_failed', code: 'payment.settlement_reverted', param: null, message: expect.any(String) } });
      }
      // The upstream was stopped, not read to its end.
      const upstream = await world.upstreams.openai.ended(0);
      expect(upstream.aborted).toBe(true);
      // No USDC moved; the sponsoring fee payer paid the failed landing's fee, once.
      expect(changeSince(world, payer, before, [drain.signature])).toEqual({ payer: -amount, recipient: 0n, feePayerLamports: -SPONSORED_FEE, landed: 1 });
      expect(await receiptWhen(gateway, path, (receipt) => receipt.status !== 'pending', 3_000)).toMatchObject({ status: 'failed', amount_charged_atomic: '0' });
    };

    it('as a stream: no further content, an error event and no [DONE], the upstream aborted, the receipt failed', async () => {
      await landsWithAnError(true);
    }, 20_000);

    it('as JSON: the answer is withheld (500 settlement_reverted), the upstream aborted, the receipt failed', async () => {
      await landsWithAnError(false);
    }, 20_000);

    it('after the confirmation window too: a transfer that lands with an error while the stream runs stops it', async () => {
      const { world, proxy } = suite;
      const gateway = await start({ GW_SETTLEMENT_CONFIRM_SECS: '1' });
      const body = chatBody({ stream: true, max_tokens: 2000 });
      const { header, amount } = await quote(gateway, body);
      const payer = fundedPayer(world, amount);
      const payment = specPaymentHeader(world, header, { payer });
      // The node takes the transfer (and any rebroadcast of it) without landing it yet.
      let held: string | null = null;
      proxy.mode({
        kind: 'hook',
        handle: ({ method, params }) => {
          if (method !== 'sendTransaction') return { kind: 'forward' };
          const [encoded] = params as [string];
          const transaction = VersionedTransaction.deserialize(Buffer.from(encoded, 'base64'));
          if (!transaction.message.staticAccountKeys[0].equals(payer.publicKey)) return { kind: 'forward' };
          held = encoded;
          return { kind: 'answer', result: bs58.encode(transaction.signatures[0]) };
        },
      });
      // 80 words at 50 ms: four seconds.
      world.upstreams.openai.script({ kind: 'reply', text: longText(80), chunkDelayMs: 50 });
      const res = await postChat(gateway, body, { 'payment-signature': payment });
      expect(res.status).toBe(200);
      const reading = new StreamReader(res).rest();
      // Past the confirmation window: the payer empties its account, then the transfer lands, with an error.
      await sleep(1_600);
      const drain = await drainUsdc(world, payer);
      const landed = await rpc<string>(world.localnet.url, 'sendTransaction', [held, { encoding: 'base64', skipPreflight: true }]);
      expect(world.localnet.sentTransactions().find((sent) => sent.signature === landed)?.err).toBeTruthy();
      const data = sseDataOf(await reading);
      expect(data).not.toContain('[DONE]');
      expect(errorEvents(data)).toEqual([expect.objectContaining({ code: 'payment.settlement_reverted' })]);
      expect(streamedContent(data).split(' ').filter(Boolean).length).toBeLessThan(60);
      expect((await world.upstreams.openai.ended(0)).aborted).toBe(true);
      expect(await receiptWhen(gateway, res.headers.get('x-gw-receipt'), (receipt) => receipt.status !== 'pending', 3_000)).toMatchObject({ status: 'failed', amount_charged_atomic: '0' });
      expect(world.localnet.usdcBalance(payer.publicKey)).toBe(0n);
      expect(drain.amount).toBe(amount);
    }, 20_000);
  });

  describeWithRedis('a durable-nonce payment holds its first content until its transfer lands', () => {
    let redis: PrivateRedis;
    beforeAll(async () => {
      redis = await startPrivateRedis();
    });
    afterAll(() => redis?.close());

    /** Durable nonces need a replay store every instance shares (Redis). */
    const startWithRedis = (): Promise<RunningGateway> => start({ REDIS_URL: redis.url, GW_SETTLEMENT_CONFIRM_SECS: '2' });

    /** A payment signed against a nonce account of the payer's, not the chain's blockhash. */
    const noncePayment = async (gateway: RunningGateway, body: Record<string, unknown>) => {
      const { world } = suite;
      const { header, amount } = await quote(gateway, body);
      const payer = fundedPayer(world, amount);
      const nonceAccount = world.localnet.createNonceAccount(payer.publicKey);
      const payment = specPaymentHeader(world, header, {
        payer,
        recentBlockhash: world.localnet.nonceOf(nonceAccount),
        instructions: (parties) => [SystemProgram.nonceAdvance({ noncePubkey: nonceAccount, authorizedPubkey: payer.publicKey }), ...paymentInstructions(transferChecked(parties, { amount }))],
      });
      return { payer, nonceAccount, payment, amount, before: snapshot(world, payer) };
    };

    /** The payer advances its own nonce, as any wallet may: a transfer naming the old one can never land. */
    const advanceNonce = async (payer: Keypair, nonceAccount: Keypair['publicKey']): Promise<string> => {
      const { world } = suite;
      const transaction = new VersionedTransaction(
        MessageV0.compile({
          payerKey: payer.publicKey,
          recentBlockhash: world.localnet.latestBlockhash().blockhash,
          instructions: [SystemProgram.nonceAdvance({ noncePubkey: nonceAccount, authorizedPubkey: payer.publicKey })],
        }),
      );
      transaction.sign([payer]);
      return new Connection(world.localnet.url, 'confirmed').sendRawTransaction(transaction.serialize());
    };

    it('a transfer that lands: the answer goes out once it has, charged once', async () => {
      const { world } = suite;
      const gateway = await startWithRedis();
      const body = chatBody();
      const { payer, payment, amount, before } = await noncePayment(gateway, body);
      const res = await postChat(gateway, body, { 'payment-signature': payment });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toEqual(expect.any(String));
      expect(changeSince(world, payer, before)).toEqual({ payer: -amount, recipient: amount, feePayerLamports: 0n, landed: 1 });
      expect(await fetchReceipt(gateway, res.headers.get('x-gw-receipt'))).toMatchObject({ status: 'settled' });
    });

    const advancedAfterPreflight = async (stream: boolean) => {
      const { world, proxy } = suite;
      const gateway = await startWithRedis();
      const body = chatBody({ stream });
      const { payer, nonceAccount, payment, before } = await noncePayment(gateway, body);
      // The node takes the transfer but never lands it (it propagates it only after this test).
      proxy.mode({ kind: 'accept-late', when: () => true });
      world.upstreams.openai.script({ kind: 'reply', text: longText(30) });

      const answer = postChat(gateway, body, { 'payment-signature': payment });
      await world.upstreams.openai.arrived(0);
      const advance = await advanceNonce(payer, nonceAccount);
      const res = await answer;
      const raw = await res.text();
      expect(res.status).toBe(402);
      expect(JSON.parse(raw)).toEqual({ error: { type: 'invalid_payment', code: 'payment.unconfirmed', param: null, message: expect.any(String) } });
      expect(raw).not.toContain('word');
      const path = res.headers.get('x-gw-receipt');
      expect(path).toMatch(/^\/v1\/receipts\//);
      // The generation went on (its answer is kept for a resend), but nothing of it was delivered.
      expect((await world.upstreams.openai.ended(0)).aborted).toBe(false);
      const pending = await fetchReceipt(gateway, path);
      expect(pending).toMatchObject({ status: 'pending', delivery: 'client_disconnected' });
      // An x402 client is told the transfer is sent and pending (resend the same payment), never that it failed: a new one could pay twice.
      expect(decodePaymentResponseHeader(res.headers.get('payment-response') as string)).toEqual({
        success: false,
        errorReason: 'settlement_pending',
        transaction: pending.transaction_signature,
        network: expect.stringMatching(/^solana:/),
      });

      // The nonce moved on, so the transfer can never land: the reconciler fails the receipt, and nothing moved.
      const failed = await receiptWhen(gateway, path, (receipt) => receipt.status !== 'pending', 8_000);
      expect(failed).toMatchObject({ status: 'failed', amount_charged_atomic: '0' });
      expect(changeSince(world, payer, before, [advance])).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });
      // A resend of the same payment still gets no answer.
      const resend = await postChat(gateway, body, { 'payment-signature': payment });
      expect(resend.status).toBe(402);
      const resent = await resend.text();
      expect(hasContentIn(resent)).toBe(false);
    };

    it('as JSON, a transfer that does not land in the window: 402 payment.unconfirmed, no content, then the receipt failed', async () => {
      await advancedAfterPreflight(false);
    }, 20_000);

    it('as a stream, the same: no event is sent before the transfer lands', async () => {
      await advancedAfterPreflight(true);
    }, 20_000);

    it('the paid tools and A2A, which serve once paid and keep no answer, refuse a durable-nonce payment before anything moves', async () => {
      const { world } = suite;
      const gateway = await startWithRedis();
      const quoted = (await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL, max_tokens: 50 }))).body.result as A2ATaskBody;
      const required = quoted.status.message?.metadata?.['x402.payment.required'] as Parameters<typeof a2aPaymentPayload>[1];
      const amount = BigInt(required.accepts[0].amount);
      const payer = fundedPayer(world, amount);
      const nonceAccount = world.localnet.createNonceAccount(payer.publicKey);
      const payload = a2aPaymentPayload(world, required, {
        payer,
        recentBlockhash: world.localnet.nonceOf(nonceAccount),
        instructions: (parties) => [SystemProgram.nonceAdvance({ noncePubkey: nonceAccount, authorizedPubkey: payer.publicKey }), ...paymentInstructions(transferChecked(parties, { amount }))],
      });
      const before = snapshot(world, payer);
      const paid = await a2aCall(gateway, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, quoted.id));
      expect(paid.body.error).toMatchObject({ code: -32007 });
      expect(world.upstreams.openai.requests).toHaveLength(0);

      const search = await routeQuote(gateway, SEARCH_PATH, { query: 'solana' });
      const searchPayer = fundedPayer(world);
      const searchNonce = world.localnet.createNonceAccount(searchPayer.publicKey);
      const searched = await postJson(
        gateway,
        SEARCH_PATH,
        { query: 'solana' },
        {
          'payment-signature': specPaymentHeader(world, search, {
            payer: searchPayer,
            recentBlockhash: world.localnet.nonceOf(searchNonce),
            instructions: (parties) => [
              SystemProgram.nonceAdvance({ noncePubkey: searchNonce, authorizedPubkey: searchPayer.publicKey }),
              ...paymentInstructions(transferChecked(parties, { amount: BigInt(search.accepts[0].amount) })),
            ],
          }),
        },
      );
      expect(searched.status).toBe(402);
      expect(((await searched.json()) as { error: { code: string } }).error.code).toBe('payment.unverifiable');
      expect(world.upstreams.tavily.requests).toHaveLength(0);
      expect(changeSince(world, payer, before)).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });
    });
  });

  it("an A2A task served while its transfer is unconfirmed: its receipt has no SettleResponse fields (x402 has no 'pending'), and the transfer that never lands charges nothing", async () => {
    const { world, proxy } = suite;
    const gateway = await start({ GW_SETTLEMENT_CONFIRM_SECS: '1', GW_RECONCILE_INTERVAL_SECS: '1' });
    const quoted = (await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL, max_tokens: 50 }))).body.result as A2ATaskBody;
    const required = quoted.status.message?.metadata?.['x402.payment.required'] as Parameters<typeof a2aPaymentPayload>[1];
    const payer = fundedPayer(world);
    const payload = a2aPaymentPayload(world, required, { payer });
    const before = snapshot(world, payer);
    // The node takes the transfer and never lands it.
    proxy.mode({ kind: 'accept-late', when: () => true });

    const task = (await a2aCall(gateway, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, quoted.id))).body
      .result as A2ATaskBody;

    expect(task.status.state).toBe('completed');
    const receipts = task.status.message?.metadata?.['x402.payment.receipts'] as Array<Record<string, unknown>>;
    expect(receipts).toEqual([{ tx_signature: expect.any(String), receipt: expect.stringMatching(/^\/v1\/receipts\//) }]);
    world.localnet.expireBlockhash();
    const receipt = await receiptWhen(gateway, receipts[0].receipt as string, (r) => r.status !== 'pending', 20_000);
    expect(receipt).toMatchObject({ status: 'failed', amount_charged_atomic: '0' });
    expect(changeSince(world, payer, before)).toMatchObject({ payer: 0n, recipient: 0n, landed: 0 });
  }, 40_000);
});

/** Whether a body carries any of the answer's words, as JSON or as events. */
function hasContentIn(raw: string): boolean {
  return raw.includes('word') || streamedContent(sseDataOf(raw)).length > 0;
}
