import type { Keypair } from '@solana/web3.js';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { formatUsdc } from '../../../src/modules/billing/domain/atomic-usdc';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, postChat, quote, specPaymentHeader, type PaidWorld } from '../../support/paid-gateway';
import { createTestDatabase } from '../../support/postgres';
import { startPrivateRedis } from '../../support/private-redis';
import type { RpcFaultProxy } from '../../support/rpc-fault-proxy';
import { serviceAvailable } from '../../support/services';
import {
  changeSince,
  drainUsdc,
  errorEvents,
  fetchReceipt,
  finalReceipt,
  hasContent,
  longText,
  receiptPathOf,
  receiptWhen,
  snapshot,
  sseDataOf,
  StreamReader,
  streamedContent,
  transferLands,
  until,
} from '../../support/settlement-probes';
import { chargedOnce, expectReplay, paidRequest, useSettlementWorld, type ChatJson } from '../../support/settlement-world';
import { migratedDataDir } from '../../support/pglite-data-dir';

/**
 * The settlement lifecycle of `exact` (docs/decisions.md, "Money moves exactly once (1 of 2)"): the payment is broadcast at the first upstream content
 * chunk; before it everything releases, after it nothing un-charges. Each test pays with a payer
 * of its own and checks the payer, the recipient and the fee payer on chain, the provider calls,
 * the receipt, and a second use of the same PAYMENT-SIGNATURE.
 */

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('the settlement lifecycle of exact: broadcast at the first content chunk', () => {
  // Each gateway gets a migrated PGlite data directory of its own.
  const suite = useSettlementWorld();
  const { providerRequests } = suite;
  let world: PaidWorld;
  let proxy: RpcFaultProxy;
  beforeAll(() => ({ world, proxy } = suite));

  /** A paid gateway with embedded PGlite receipts and short windows; `env` overrides. */
  const gatewayWith = async (env: Record<string, string | undefined> = {}): Promise<RunningGateway> =>
    suite.start({ GW_STORAGE: undefined, GW_DATA_DIR: await migratedDataDir(), GW_SHUTDOWN_GRACE_SECS: '1', GW_RECONCILE_INTERVAL_SECS: '1', ...env });

  /** A second use of `payment` with the same body: the replay 402, and nothing moved, no provider called. */
  async function expectReplayRefused(gateway: RunningGateway, body: Record<string, unknown>, payment: string, payer: Keypair): Promise<void> {
    const before = snapshot(world, payer);
    const calls = providerRequests();
    await expectReplay(gateway, body, payment);
    expect(changeSince(world, payer, before)).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });
    expect(providerRequests()).toBe(calls);
  }

  describe('row 1: a stream outlives the request timeout; the stream cap cuts but still charges', () => {
    it('a paid stream longer than GW_REQUEST_TIMEOUT_SECS completes with [DONE], charged the quote once; receipt settled/complete; reuse is 402', async () => {
      // The timeout covers the verification and the broadcast before the headers: 2 s leaves a loaded machine room for them.
      const gateway = await gatewayWith({ GW_REQUEST_TIMEOUT_SECS: '2' });
      const text = longText(30);
      const body = chatBody({ stream: true });
      const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
      world.upstreams.openai.script({ kind: 'reply', text, chunkDelayMs: 150 });

      const started = Date.now();
      const res = await postChat(gateway, body, { 'payment-signature': payment });
      expect(res.status).toBe(200);
      const raw = await res.text();
      const data = sseDataOf(raw);
      expect(errorEvents(data)).toEqual([]);
      expect(data[data.length - 1]).toBe('[DONE]');
      expect(streamedContent(data)).toBe(text);
      expect(Date.now() - started).toBeGreaterThan(3_000); // well past the 2 s request timeout

      expect(world.upstreams.openai.requests).toHaveLength(1);
      expect((await world.upstreams.openai.ended(0)).aborted).toBe(false);
      expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
      const receipt = await finalReceipt(gateway, res, raw);
      expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'complete', broadcast_at: expect.stringMatching(ISO_TIME) });
      await expectReplayRefused(gateway, body, payment, payer);
    }, 20_000);

    it('GW_STREAM_MAX_SECS cuts a slow stream with an error event (no [DONE]); still charged once; receipt partial; reuse is 402', async () => {
      const gateway = await gatewayWith({ GW_STREAM_MAX_SECS: '1' });
      const body = chatBody({ stream: true });
      const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
      world.upstreams.openai.script({ kind: 'reply', text: longText(30), chunkDelayMs: 150 });

      const started = Date.now();
      const res = await postChat(gateway, body, { 'payment-signature': payment });
      expect(res.status).toBe(200);
      const raw = await res.text();
      const data = sseDataOf(raw);
      expect(Date.now() - started).toBeLessThan(3_500); // cut near 1 s, not the ~4.8 s the reply takes
      expect(data).not.toContain('[DONE]');
      expect(streamedContent(data).length).toBeGreaterThan(0);
      expect(errorEvents(data)).toHaveLength(1);
      expect(JSON.parse(data[data.length - 1])).toEqual({ error: expect.objectContaining({ type: expect.any(String), message: expect.any(String) }) });

      expect(world.upstreams.openai.requests).toHaveLength(1);
      await world.upstreams.openai.ended(0);
      await transferLands(world, payer, before);
      expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
      const receipt = await finalReceipt(gateway, res, raw);
      expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'partial', broadcast_at: expect.stringMatching(ISO_TIME) });
      await expectReplayRefused(gateway, body, payment, payer);
    }, 15_000);
  });

  it('row 2: money moves at the first chunk; a payer that empties its account mid-stream and an expired blockhash change nothing', async () => {
    const gateway = await gatewayWith();
    const text = longText(18);
    const body = chatBody({ stream: true });
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    world.upstreams.openai.script({ kind: 'reply', text, chunkDelayMs: 200 });

    const res = await postChat(gateway, body, { 'payment-signature': payment });
    expect(res.status).toBe(200);
    const stream = new StreamReader(res);
    await stream.next(hasContent);
    // The first content event is out: the transfer was broadcast with it and lands long before the end.
    await until(() => world.localnet.usdcBalance(world.recipient.publicKey) - before.recipient === amount, 1_500, 'the recipient gains the quote while the stream still runs');
    expect(world.upstreams.openai.requests[0].endedAt).toBeUndefined(); // the provider is still answering
    expect(stream.data).not.toContain('[DONE]');

    const drain = await drainUsdc(world, payer); // the payer empties its account mid-stream...
    world.localnet.expireBlockhash(); // ...and the payment's blockhash expires
    const raw = await stream.rest();
    const data = sseDataOf(raw);
    expect(errorEvents(data)).toEqual([]);
    expect(data[data.length - 1]).toBe('[DONE]');
    expect(streamedContent(data)).toBe(text);

    expect(drain.amount).toBe(before.payer - amount);
    expect(changeSince(world, payer, before, [drain.signature])).toEqual({ payer: -before.payer, recipient: amount, feePayerLamports: 0n, landed: 1 });
    expect(world.upstreams.openai.requests).toHaveLength(1);
    const receipt = await finalReceipt(gateway, res, raw);
    expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'complete', broadcast_at: expect.stringMatching(ISO_TIME) });
    await expectReplayRefused(gateway, body, payment, payer);
  }, 15_000);

  it('row 3: the RPC silent on getSignatureStatuses: the JSON answer is delivered (200, receipt pending), then the reconciler settles it', async () => {
    const gateway = await gatewayWith({ GW_SOLANA_RPC_URL: proxy.url, GW_SETTLEMENT_CONFIRM_SECS: '1', GW_RECONCILE_INTERVAL_SECS: '1' });
    const body = chatBody();
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    // The RPC cannot say what became of the transfer (statuses, and history too, go unanswered); sending still works.
    const statusCallsBefore = proxy.calls('getSignatureStatuses');
    proxy.mode({ kind: 'silent', methods: ['getSignatureStatuses', 'getTransaction', 'getSignaturesForAddress'] });

    const res = await postChat(gateway, body, { 'payment-signature': payment });
    const raw = await res.text();
    expect(res.status).toBe(200); // not 500: the gateway, never the payer, takes the unconfirmed risk
    expect((JSON.parse(raw) as ChatJson).choices[0].message.content).toBe('fake openai reply to: Say hello');
    const path = receiptPathOf(res, raw);
    const pending = await fetchReceipt(gateway, path);
    expect(pending).toMatchObject({ status: 'pending', broadcast_at: expect.stringMatching(ISO_TIME) });
    expect(proxy.calls('getSignatureStatuses')).toBeGreaterThan(statusCallsBefore);

    proxy.mode({ kind: 'pass' });
    const settled = await receiptWhen(gateway, path, (r) => r.status === 'settled', 5_000);
    expect(settled).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'complete' });
    expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount)); // rebroadcasts of the same bytes land once
    expect(world.upstreams.openai.requests).toHaveLength(1);
    await expectReplayRefused(gateway, body, payment, payer);
  }, 20_000);

  it('a budget reservation follows a pending settlement: held (so the budget admits no more) until the reconciler settles it, then counted as spend', async () => {
    const gateway = await gatewayWith({ GW_SOLANA_RPC_URL: proxy.url, GW_SETTLEMENT_CONFIRM_SECS: '1', GW_RECONCILE_INTERVAL_SECS: '1', GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    const body = chatBody();
    const { payer, payment, amount } = await paidRequest(world, gateway, body);
    const budgetPath = `${gateway.url}/v1/wallets/${payer.publicKey.toBase58()}/budget`;
    const admin = { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const dailySpend = async () => ((await (await fetch(budgetPath, { headers: admin })).json()) as { daily_spend: string }).daily_spend;
    // A budget of exactly one quote.
    expect((await fetch(budgetPath, { method: 'PUT', headers: admin, body: JSON.stringify({ daily: Number(formatUsdc(amount)) }) })).status).toBe(200);
    proxy.mode({ kind: 'silent', methods: ['getSignatureStatuses', 'getTransaction', 'getSignaturesForAddress'] });

    const res = await postChat(gateway, body, { 'payment-signature': payment });
    const raw = await res.text();
    expect(res.status).toBe(200);
    const path = receiptPathOf(res, raw);
    expect(await fetchReceipt(gateway, path)).toMatchObject({ status: 'pending' });
    expect(await dailySpend()).toBe(formatUsdc(0n));
    const { header } = await quote(gateway, body);
    const second = await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header, { payer }) });
    expect(second.status).toBe(400);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('budget.exceeded');

    proxy.mode({ kind: 'pass' });
    await receiptWhen(gateway, path, (r) => r.status === 'settled', 5_000);
    expect(await dailySpend()).toBe(formatUsdc(amount));
  }, 20_000);

  it('row 4: a JSON answer whose confirmation is slower than GW_REQUEST_TIMEOUT_SECS is a 200, never a 408; charged once', async () => {
    const gateway = await gatewayWith({ GW_SOLANA_RPC_URL: proxy.url, GW_REQUEST_TIMEOUT_SECS: '1', GW_SETTLEMENT_CONFIRM_SECS: '10' });
    const body = chatBody();
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    proxy.mode({ kind: 'slow', delayMs: 1_500, methods: ['getSignatureStatuses', 'sendTransaction'] });

    const started = Date.now();
    const res = await postChat(gateway, body, { 'payment-signature': payment });
    const raw = await res.text();
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThan(1_000); // the confirmation outlived the request timeout
    expect((JSON.parse(raw) as ChatJson).choices[0]).toMatchObject({ message: { content: 'fake openai reply to: Say hello' }, finish_reason: 'stop' });
    proxy.mode({ kind: 'pass' });

    expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
    expect(world.upstreams.openai.requests).toHaveLength(1);
    const receipt = await finalReceipt(gateway, res, raw);
    expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'complete', broadcast_at: expect.stringMatching(ISO_TIME) });
    await expectReplayRefused(gateway, body, payment, payer);
  }, 20_000);

  it('row 5: a client that leaves after the provider got its request: the answer completes and settles; a resend with the same body is redelivered (JSON or SSE), another body is a replay', async () => {
    const gateway = await gatewayWith({ GW_REDELIVERY_TTL_SECS: '60' });
    const text = longText(10);
    const body = chatBody();
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    world.upstreams.openai.script({ kind: 'reply', text, chunkDelayMs: 100 });

    const controller = new AbortController();
    const leaving = postChat(gateway, body, { 'payment-signature': payment }, controller.signal).then(
      () => 'answered',
      (err: unknown) => (err as Error).name,
    );
    await world.upstreams.openai.arrived(0);
    controller.abort();
    expect(await leaving).toBe('AbortError');

    const upstream = await world.upstreams.openai.ended(0);
    expect((upstream.body as { stream?: boolean }).stream).toBe(true); // a paid JSON request streams from its upstream
    expect(upstream.aborted).toBe(false); // the fake wrote its whole reply
    expect(upstream.endedAt! - upstream.receivedAt).toBeGreaterThanOrEqual(1_000); // 14 events, 100 ms apart
    await transferLands(world, payer, before);
    expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));

    // The same body again: that answer, no second provider call, no second charge.
    const again = await postChat(gateway, body, { 'payment-signature': payment });
    const againRaw = await again.text();
    expect(again.status).toBe(200);
    expect(again.headers.get('x-gw-redelivered')).toBe('true');
    // Like any successful paid answer it names its receipt: the original client never got the headers.
    expect(again.headers.get('x-gw-receipt')).toMatch(/^\/v1\/receipts\/[0-9a-f-]{36}$/);
    expect((JSON.parse(againRaw) as ChatJson).choices[0]).toMatchObject({ message: { content: text }, finish_reason: 'stop' });
    const receipt = await finalReceipt(gateway, again, againRaw);
    expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'client_disconnected', broadcast_at: expect.stringMatching(ISO_TIME) });

    // As SSE when the resend asks for a stream (stream and stream_options are not part of the body's identity).
    const asStream = await postChat(gateway, { ...body, stream: true, stream_options: { include_usage: true } }, { 'payment-signature': payment });
    expect(asStream.status).toBe(200);
    expect(asStream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(asStream.headers.get('x-gw-redelivered')).toBe('true');
    const data = sseDataOf(await asStream.text());
    expect(data[data.length - 1]).toBe('[DONE]');
    expect(streamedContent(data)).toBe(text);

    expect(world.upstreams.openai.requests).toHaveLength(1);
    expect(providerRequests()).toBe(1);
    expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
    // Another body (same length, so the same quote) with that payment is a replay.
    await expectReplayRefused(gateway, chatBody({ messages: [{ role: 'user', content: 'Say howdy' }] }), payment, payer);
  }, 20_000);

  describe('row 6: preflight rejects the transfer (the payer emptied its account after acceptance, before the first chunk)', () => {
    async function preflightRejected(stream: boolean): Promise<void> {
      const gateway = await gatewayWith();
      // max_tokens 2000: a quote above GW_SPONSOR_MIN_ATOMIC (1,000), so the gateway sponsors its fee.
      const body = chatBody({ stream, max_tokens: 2000 });
      const { payer, payment, amount, before } = await paidRequest(world, gateway, body, { layout: 'sponsored' });
      expect(amount).toBeGreaterThanOrEqual(1_000n);
      world.upstreams.openai.script({ kind: 'reply', text: longText(20), firstByteDelayMs: 300, chunkDelayMs: 100 });

      const answer = postChat(gateway, body, { 'payment-signature': payment });
      await world.upstreams.openai.arrived(0); // accepted: verified, simulated, claimed, handed to the provider
      const drain = await drainUsdc(world, payer);
      const res = await answer;
      const raw = await res.text();

      if (stream) {
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        // Nothing was broadcast, so the headers say nothing of a settlement.
        expect(res.headers.get('payment-response')).toBeNull();
        const data = sseDataOf(raw);
        expect(data).not.toContain('[DONE]');
        expect(errorEvents(data)).toHaveLength(1);
        expect(JSON.parse(data[data.length - 1])).toEqual({ error: expect.objectContaining({ type: expect.any(String), message: expect.any(String) }) });
      } else {
        expect(res.status).toBe(500);
        expect(JSON.parse(raw)).toEqual({ error: { type: 'settlement_failed', message: expect.any(String), code: 'payment.settlement_failed', param: null } });
        // An x402 client reads the failed settlement from PAYMENT-RESPONSE, as @x402/svm names it.
        expect(res.headers.get('payment-required')).toBeNull();
        expect(decodePaymentResponseHeader(res.headers.get('payment-response') as string)).toEqual({
          success: false,
          errorReason: 'invalid_exact_svm_transaction_simulation_failed',
          transaction: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/),
          network: expect.stringMatching(/^solana:/),
        });
      }

      // The upstream was stopped, not read to the end (20 words at 100 ms would take over 2 s).
      const upstream = await world.upstreams.openai.ended(0);
      expect(upstream.aborted).toBe(true);
      expect(upstream.endedAt! - upstream.receivedAt).toBeLessThan(1_500);
      // Nothing charged, nothing landed, the sponsoring fee payer paid no lamports.
      expect(changeSince(world, payer, before, [drain.signature])).toEqual({ payer: -before.payer, recipient: 0n, feePayerLamports: 0n, landed: 0 });
      const receipt = await finalReceipt(gateway, res, raw);
      expect(receipt).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });

      // A second use: the payer still has nothing, so it is refused before any provider call, and nothing moves.
      const calls = providerRequests();
      const beforeAgain = snapshot(world, payer);
      const again = await postChat(gateway, body, { 'payment-signature': payment });
      expect(again.status).toBe(402);
      expect(((await again.json()) as { error: { type: string } }).error.type).toBe('invalid_payment');
      // A verification refusal: a fresh challenge naming the reason, and no settlement.
      expect(decodePaymentRequiredHeader(again.headers.get('payment-required') as string).error).toBe('invalid_exact_svm_transaction_simulation_failed');
      expect(again.headers.get('payment-response')).toBeNull();
      expect(providerRequests()).toBe(calls);
      expect(changeSince(world, payer, beforeAgain)).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });
    }

    it('a JSON request: 500 settlement_failed, upstream aborted, nothing charged, the fee payer pays nothing, receipt not_charged', async () => {
      await preflightRejected(false);
    }, 15_000);

    it('a stream: ends with an error event and no [DONE], upstream aborted, nothing charged, the fee payer pays nothing, receipt not_charged', async () => {
      await preflightRejected(true);
    }, 15_000);
  });

  it('before the first chunk everything releases: every provider 503 → 503, receipt not_charged, and the same payment then works (charged once)', async () => {
    const gateway = await gatewayWith();
    const body = chatBody();
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    const { openai, anthropic, google, nvidia } = world.upstreams;
    for (const fake of [openai, anthropic, google, nvidia]) fake.setDefault({ kind: 'status', status: 503 });

    const failed = await postChat(gateway, body, { 'payment-signature': payment });
    const failedRaw = await failed.text();
    expect(failed.status).toBe(503);
    expect((JSON.parse(failedRaw) as { error: { type: string } }).error.type).toBe('upstream_unavailable');
    expect(providerRequests()).toBeGreaterThanOrEqual(1);
    expect(changeSince(world, payer, before)).toEqual({ payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 });
    const released = await finalReceipt(gateway, failed, failedRaw);
    expect(released).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0', broadcast_at: null });

    for (const fake of [openai, anthropic, google, nvidia]) fake.setDefault({ kind: 'reply' });
    const calls = providerRequests();
    const retried = await postChat(gateway, body, { 'payment-signature': payment });
    const retriedRaw = await retried.text();
    expect(retried.status).toBe(200);
    expect((JSON.parse(retriedRaw) as ChatJson).choices[0].message.content).toBe('fake openai reply to: Say hello');
    expect(providerRequests()).toBe(calls + 1);
    expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
    const receipt = await finalReceipt(gateway, retried, retriedRaw);
    expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'complete' });
    await expectReplayRefused(gateway, body, payment, payer);
  }, 15_000);

  it('after the first chunk nothing un-charges: a JSON request whose provider cuts the stream answers 200 with the content so far and finish_reason null; receipt partial; charged once', async () => {
    const gateway = await gatewayWith();
    const body = chatBody();
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    world.upstreams.openai.script({ kind: 'cut-stream', afterChunks: 3 }); // the role event, then 'fake ', 'openai '

    const res = await postChat(gateway, body, { 'payment-signature': payment });
    const raw = await res.text();
    expect(res.status).toBe(200);
    const answer = JSON.parse(raw) as ChatJson;
    expect(answer.choices[0].finish_reason).toBeNull();
    expect(answer.choices[0].message.content?.trim()).toBe('fake openai');

    expect(world.upstreams.openai.requests).toHaveLength(1);
    expect((world.upstreams.openai.requests[0].body as { stream?: boolean }).stream).toBe(true); // streamed upstream though the client asked for JSON
    expect(providerRequests()).toBe(1); // no fallback once content arrived
    expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
    const receipt = await finalReceipt(gateway, res, raw);
    expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'partial', broadcast_at: expect.stringMatching(ISO_TIME) });
    await expectReplayRefused(gateway, body, payment, payer);
  }, 15_000);

  const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;
  describeWithPostgres('row 8: two instances on one PostgreSQL database, their private Redis killed', () => {
    it('the payment served on A is a replay on B (402); exactly one transfer, one provider call', async () => {
      const [redis, database] = await Promise.all([startPrivateRedis(), createTestDatabase()]);
      try {
        const shared = { GW_STORAGE: undefined, DATABASE_URL: database.url, REDIS_URL: redis.url, GW_SHUTDOWN_GRACE_SECS: '1', GW_RECONCILE_INTERVAL_SECS: '1' };
        const a = await suite.start(shared);
        const b = await suite.start(shared);
        const body = chatBody();
        const { payer, payment, amount, before } = await paidRequest(world, a, body);

        const served = await postChat(a, body, { 'payment-signature': payment });
        const servedRaw = await served.text();
        expect(served.status).toBe(200);
        const receipt = await finalReceipt(a, served, servedRaw);
        expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'complete' });

        await redis.kill(); // B can no longer see A's claim in Redis; only the database knows
        await expectReplayRefused(b, body, payment, payer);
        await expectReplayRefused(a, body, payment, payer);
        expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
        expect(providerRequests()).toBe(1);
        // B reads A's receipt from the shared database.
        expect(await fetchReceipt(b, receiptPathOf(served, servedRaw))).toMatchObject({ id: receipt.id, status: 'settled' });
      } finally {
        await suite.closeGateways();
        await redis.close();
        await database.drop();
      }
    }, 30_000);
  });
});
