import type { RunningGateway } from '../../../src/gateway';
import { chatBody, postChat, type PaidWorld } from '../../support/paid-gateway';
import { changeSince, drainUsdc, finalReceipt, hasContent, longText, sleep, sseDataOf, StreamReader, streamedContent, transferLands, until } from '../../support/settlement-probes';
import { chargedOnce, expectReplay, NOTHING_MOVED, paidRequest, useSettlementWorld } from '../../support/settlement-world';
import { migratedDataDir } from '../../support/pglite-data-dir';

/**
 * Review of PaidCall (src/modules/chat/application/paid-call.ts): one object owns what stops a paid
 * upstream call from the payment's acceptance (the request-timeout timer, the edge's abort, client
 * departure told to the generation, the stream cap, shutdown), and PaidGenerations keeps one call per
 * replay key. Attacks on the local chain, as an attacker and as an unlucky honest user.
 */

describe('PaidCall: what stops a paid call from acceptance, one call per replay key', () => {
  const suite = useSettlementWorld();
  const { providerRequests } = suite;
  let world: PaidWorld;
  beforeAll(() => ({ world } = suite));

  const gatewayWith = async (env: Record<string, string | undefined> = {}): Promise<RunningGateway> =>
    suite.start({ GW_STORAGE: undefined, GW_DATA_DIR: await migratedDataDir(), GW_SHUTDOWN_GRACE_SECS: '1', GW_RECONCILE_INTERVAL_SECS: '3600', GW_SETTLEMENT_CONFIRM_SECS: '2', ...env });

  it('guard: a stream client that leaves before its generation is attached: the generation learns it left, a resend attaches live; one provider call, charged once', async () => {
    const gateway = await gatewayWith({ GW_REDELIVERY_TTL_SECS: '60' });
    const text = longText(12);
    const body = chatBody({ stream: true });
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    // Headers after 400 ms (the generation is attached only then), then 15 events 120 ms apart.
    world.upstreams.openai.script({ kind: 'reply', text, firstByteDelayMs: 400, chunkDelayMs: 120 });

    const controller = new AbortController();
    const leaving = postChat(gateway, body, { 'payment-signature': payment }, controller.signal).then(
      () => 'answered',
      (err: Error) => err.name,
    );
    await world.upstreams.openai.arrived(0);
    controller.abort(); // before the provider's headers: PaidCall has no generation yet
    expect(await leaving).toBe('AbortError');

    await sleep(800); // attached, answer under way, not finished
    const again = await postChat(gateway, body, { 'payment-signature': payment });
    const raw = await again.text();
    expect({ status: again.status, redelivered: again.headers.get('x-gw-redelivered') }).toEqual({ status: 200, redelivered: 'true' });
    const data = sseDataOf(raw);
    expect(streamedContent(data)).toBe(text);
    expect(data[data.length - 1]).toBe('[DONE]');

    await transferLands(world, payer, before);
    expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
    expect(providerRequests()).toBe(1);
    const receipt = await finalReceipt(gateway, again, raw);
    expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString(), delivery: 'client_disconnected' });
  }, 15_000);

  it('guard: a stream whose upstream answers but whose first content comes after GW_REQUEST_TIMEOUT_SECS is a 408 naming its receipt: nothing charged, the payment serves once later', async () => {
    const gateway = await gatewayWith({ GW_REQUEST_TIMEOUT_SECS: '1', GW_STREAM_MAX_SECS: '20' });
    const body = chatBody({ stream: true });
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    // The role event (no content) at 0.7 s: the answer starts, but a paid stream's headers wait for its
    // first content (and its payment's broadcast), at 1.4 s, after the request timeout.
    world.upstreams.openai.script({ kind: 'reply', text: 'too late', chunkDelayMs: 700 });

    const res = await postChat(gateway, body, { 'payment-signature': payment });
    const raw = await res.text();
    const upstream = await world.upstreams.openai.ended(0);
    expect(upstream.aborted).toBe(true);
    expect(upstream.endedAt! - upstream.receivedAt).toBeLessThan(1_800);
    expect(res.status).toBe(408);
    expect(JSON.parse(raw)).toMatchObject({ error: { type: 'request_timeout', code: 'request.timeout' } });
    expect(res.headers.get('x-gw-receipt')).toMatch(/^\/v1\/receipts\//);
    await sleep(300);
    expect(changeSince(world, payer, before)).toEqual(NOTHING_MOVED);
    expect(await finalReceipt(gateway, res, raw)).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });

    const retried = await postChat(gateway, body, { 'payment-signature': payment });
    const data = sseDataOf(await retried.text());
    expect(streamedContent(data)).toBe('fake openai reply to: Say hello');
    expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
    await expectReplay(gateway, body, payment);
  }, 15_000);

  it('guard: a payer that empties its account mid-request, refills it and retries the released payment: the retry is the live call of its key (a resend attaches to it); charged once', async () => {
    const gateway = await gatewayWith({ GW_REDELIVERY_TTL_SECS: '60' });
    const text = longText(12);
    const body = chatBody({ stream: true });
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    world.upstreams.openai.script({ kind: 'reply', text: longText(20), firstByteDelayMs: 300, chunkDelayMs: 100 }, { kind: 'reply', text, chunkDelayMs: 150 });

    // A: accepted, then the payer drains its account before the first content: the broadcast is refused, A is released.
    const first = postChat(gateway, body, { 'payment-signature': payment });
    await world.upstreams.openai.arrived(0);
    const drain = await drainUsdc(world, payer);
    const a = await first;
    const aRaw = await a.text();
    expect(sseDataOf(aRaw)).not.toContain('[DONE]');
    expect(await finalReceipt(gateway, a, aRaw)).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });

    // B: the payer refills and retries the same payment at once (racing A's cleanup), then leaves after its first content.
    world.localnet.fundUsdc(payer.publicKey, drain.amount);
    const controller = new AbortController();
    const b = await postChat(gateway, body, { 'payment-signature': payment }, controller.signal);
    expect(b.status).toBe(200);
    const reader = new StreamReader(b);
    await reader.next(hasContent);
    controller.abort();
    await reader.cancel();

    // C: the same body again while B's generation runs: it attaches to B's (found under the key A held before).
    await sleep(200);
    const c = await postChat(gateway, body, { 'payment-signature': payment });
    const cRaw = await c.text();
    expect({ status: c.status, redelivered: c.headers.get('x-gw-redelivered') }).toEqual({ status: 200, redelivered: 'true' });
    expect(streamedContent(sseDataOf(cRaw))).toBe(text);

    await until(() => changeSince(world, payer, before, [drain.signature]).landed === 1, 3_000, 'the retried transfer lands');
    expect(changeSince(world, payer, before, [drain.signature])).toEqual({ payer: -amount, recipient: amount, feePayerLamports: 0n, landed: 1 });
    expect(world.upstreams.openai.requests).toHaveLength(2);
    const receipt = await finalReceipt(gateway, c, cRaw);
    expect(receipt).toMatchObject({ status: 'settled', amount_charged_atomic: amount.toString() });
  }, 20_000);

  it('guard: shutdown stops the retry of a released payment (the call registered under the reused key) before its provider answers: nothing charged', async () => {
    const gateway = await gatewayWith({ GW_REQUEST_TIMEOUT_SECS: '30' });
    const body = chatBody();
    const { payer, payment, before } = await paidRequest(world, gateway, body);
    // A: every candidate refuses before any chunk: released. B (same payment): the provider answers after the grace period.
    const { openai, anthropic, google, nvidia } = world.upstreams;
    for (const fake of [anthropic, google, nvidia]) fake.setDefault({ kind: 'status', status: 503 });
    openai.script({ kind: 'status', status: 503 }, { kind: 'reply', text: 'late hello', firstByteDelayMs: 2_500 });

    const a = await postChat(gateway, body, { 'payment-signature': payment });
    expect(a.status).toBe(503);
    await a.text();
    const callsBefore = openai.requests.length;
    const b = postChat(gateway, body, { 'payment-signature': payment }).then(
      (res) => res.status,
      (err: Error) => err.name,
    );
    await openai.arrived(callsBefore);
    await suite.closeGateways();
    expect(await b).not.toBe(200);
    await openai.ended(callsBefore);
    await sleep(500);
    expect(changeSince(world, payer, before)).toEqual(NOTHING_MOVED);
  }, 20_000);

  it('guard: parallel copies of a released payment retried at once: one is served, the others are replays; charged once', async () => {
    const gateway = await gatewayWith();
    const body = chatBody();
    const { payer, payment, amount, before } = await paidRequest(world, gateway, body);
    const { openai, anthropic, google, nvidia } = world.upstreams;
    for (const fake of [anthropic, google, nvidia]) fake.setDefault({ kind: 'status', status: 503 });
    openai.script({ kind: 'cut-stream', afterChunks: 0 });
    openai.setDefault({ kind: 'reply', text: 'hello', chunkDelayMs: 50 });

    const a = await postChat(gateway, body, { 'payment-signature': payment });
    await a.text();
    expect(a.status).not.toBe(200);
    const copies = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const res = await postChat(gateway, body, { 'payment-signature': payment });
        await res.text();
        return res.status;
      }),
    );
    expect(copies.filter((status) => status === 200)).toHaveLength(1);
    expect(copies.filter((status) => status === 402)).toHaveLength(3);
    await transferLands(world, payer, before);
    expect(changeSince(world, payer, before)).toEqual(chargedOnce(amount));
  }, 15_000);
});
