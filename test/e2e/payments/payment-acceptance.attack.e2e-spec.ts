import type { PaymentRequiredBody } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import type { SpendRecord } from '../../../src/modules/billing/domain/spend-record';
import { a2aCall, a2aPaymentPayload, userMessage } from '../../support/a2a-client';
import { escrowPaymentHeader, pollUntil, type EscrowReceiptBody } from '../../support/escrow-payments';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, PAID_MODEL, watchSpendRows, type PaidWorld } from '../../support/paid-gateway';
import { postJson, routeQuote, SEARCH_PATH } from '../../support/paid-tools';
import { pgliteStorage } from '../../support/storage-env';

/** A header's JSON with `accepted` changed: what a client that lies about its scheme sends. */
function withAccepted(header: string, accepted: Record<string, unknown>): string {
  const payload = JSON.parse(Buffer.from(header, 'base64').toString()) as { accepted: Record<string, unknown> };
  return Buffer.from(JSON.stringify({ ...payload, accepted: { ...payload.accepted, ...accepted } })).toString('base64');
}

/**
 * PaymentAcceptance picks the scheme a payload names among those its surface takes; anything else
 * goes to `exact`, which refuses it. Attacks: a scheme name in another casing or unknown, a
 * scheme that does not match its payload's kind, an escrow deposit where only `exact` is sold.
 * Each refusal moves no money, calls no provider and writes no spend row.
 */
describe('payment acceptance across schemes (attacks)', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;
  let rows: SpendRecord[];

  beforeAll(async () => {
    world = await startPaidWorld({ escrow: true });
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_CLAIM_INTERVAL_MS: '50' });
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

  const balances = () => ({
    payer: world.localnet.usdcBalance(world.payer.publicKey),
    recipient: world.localnet.usdcBalance(world.recipient.publicKey),
    provider: world.localnet.usdcBalance(world.escrow!.provider.publicKey),
  });
  const provider = () => world.escrow!.provider.publicKey.toBase58();

  async function expectRefusedUnmoved(send: () => Promise<Response>, code: string | RegExp): Promise<void> {
    const before = balances();
    const res = await send();
    const body = (await res.json()) as { error?: { code: string } };
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(body.error?.code).toMatch(code);
    expect(balances()).toEqual(before);
    expect(world.upstreams.openai.requests).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rows).toEqual([]);
  }

  describe('chat (exact and escrow)', () => {
    it.each(['EXACT', 'exact ', 'upto'])('an exact transfer naming the scheme %j is refused, nothing moved', async (scheme) => {
      const { header } = await quote(gateway, chatBody());
      const payment = specPaymentHeader(world, header, { accepted: { scheme } });
      await expectRefusedUnmoved(() => postChat(gateway, chatBody(), { 'payment-signature': payment }), /^payment\.scheme/);
    });

    it.each(['Escrow'])('an escrow deposit naming the scheme %j is refused, no deposit lands', async (scheme) => {
      const { amount } = await quote(gateway, chatBody());
      const { header } = await escrowPaymentHeader(world, gateway, { amount });
      await expectRefusedUnmoved(() => postChat(gateway, chatBody(), { 'payment-signature': withAccepted(header, { scheme }) }), /^payment\./);
    });

    it('an exact transfer under accepted.scheme "escrow" (pay_to the escrow provider) is a scheme/payload mismatch', async () => {
      const { header } = await quote(gateway, chatBody());
      const payment = specPaymentHeader(world, header, { accepted: { scheme: 'escrow', payTo: provider() } });
      await expectRefusedUnmoved(() => postChat(gateway, chatBody(), { 'payment-signature': payment }), 'payment.scheme_payload_mismatch');
    });

    it('an escrow deposit under accepted.scheme "exact" (pay_to the recipient) is a scheme/payload mismatch', async () => {
      const { amount } = await quote(gateway, chatBody());
      const { header } = await escrowPaymentHeader(world, gateway, { amount });
      const lying = withAccepted(header, { scheme: 'exact', pay_to: world.recipient.publicKey.toBase58() });
      await expectRefusedUnmoved(() => postChat(gateway, chatBody(), { 'payment-signature': lying }), 'payment.scheme_payload_mismatch');
    });

    it('after those refusals a well-formed payment of each scheme is served once, with one spend row each', async () => {
      const { header, amount } = await quote(gateway, chatBody());
      const exact = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });
      expect(exact.status).toBe(200);
      const { header: deposit } = await escrowPaymentHeader(world, gateway, { amount });
      const escrow = await postChat(gateway, chatBody(), { 'payment-signature': deposit });
      expect(escrow.status).toBe(200);
      // Its claim lands in the background: waited for, so that no later test sees it move money.
      const claimed = await pollUntil(
        async () => (await (await fetch(`${gateway.url}${escrow.headers.get('x-gw-receipt')}`)).json()) as EscrowReceiptBody,
        (receipt) => receipt.status !== 'pending',
      );
      expect(claimed.status).toBe('settled');
      expect(rows.map((row) => row.model)).toEqual([PAID_MODEL, PAID_MODEL]);
      expect(new Set(rows.map((row) => row.requestId)).size).toBe(2);
    });
  });

  describe('the paid tools (exact only)', () => {
    it.each(['escrow', 'ESCROW'])('an escrow deposit naming %j on /v1/search is refused, never downgraded', async (scheme) => {
      const offer = await routeQuote(gateway, SEARCH_PATH, { query: 'solana' });
      const { header } = await escrowPaymentHeader(world, gateway, { amount: BigInt(offer.accepts[0].amount), resourceUrl: SEARCH_PATH });
      await expectRefusedUnmoved(() => postJson(gateway, SEARCH_PATH, { query: 'solana' }, { 'payment-signature': withAccepted(header, { scheme }) }), /^payment\./);
    });

    it('an exact transfer naming "escrow" on /v1/search is refused', async () => {
      const offer = await routeQuote(gateway, SEARCH_PATH, { query: 'solana' });
      const payment = specPaymentHeader(world, offer, { accepted: { scheme: 'escrow' } });
      await expectRefusedUnmoved(() => postJson(gateway, SEARCH_PATH, { query: 'solana' }, { 'payment-signature': payment }), 'payment.scheme_payload_mismatch');
    });
  });

  describe('A2A (exact or escrow)', () => {
    async function quotedTask(): Promise<{ id: string; required: PaymentRequiredBody }> {
      const quoted = (await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL, max_tokens: 50 }))).body.result!;
      return { id: quoted.id, required: quoted.status.message!.metadata!['x402.payment.required'] as PaymentRequiredBody };
    }

    async function expectTaskRefusedUnmoved(id: string, payload: unknown): Promise<void> {
      const before = balances();
      const paid = await a2aCall(gateway, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, id));
      expect(paid.body.result?.status.state).not.toBe('completed');
      expect(balances()).toEqual(before);
      expect(world.upstreams.openai.requests).toHaveLength(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(rows).toEqual([]);
    }

    it('an exact transfer under the escrow offer (scheme and pay_to copied from it) is refused, nothing moved', async () => {
      const { id, required } = await quotedTask();
      const escrowOffer = required.accepts.find((entry) => entry.scheme === 'escrow')!;
      const payload = a2aPaymentPayload(world, required, { accepted: { scheme: 'escrow', payTo: escrowOffer.pay_to } });
      await expectTaskRefusedUnmoved(id, payload);
    });

    it('an escrow deposit under the exact offer is refused, no deposit lands', async () => {
      const { id, required } = await quotedTask();
      const { header } = await escrowPaymentHeader(world, gateway, { amount: BigInt(required.accepts[0].amount), resourceUrl: '/a2a' });
      const payload = JSON.parse(Buffer.from(withAccepted(header, { scheme: 'exact', pay_to: world.recipient.publicKey.toBase58() }), 'base64').toString()) as unknown;
      await expectTaskRefusedUnmoved(id, payload);
    });

    it('a provider failure after an exact payment settled is charged, and so has its spend row (as the paid tools have)', async () => {
      world.upstreams.openai.setDefault({ kind: 'status', status: 503 });
      const { id, required } = await quotedTask();
      const before = balances();
      const paid = await a2aCall(gateway, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': a2aPaymentPayload(world, required) }, id));
      expect(paid.body.result?.status.state).toBe('failed');
      const amount = BigInt(required.accepts[0].amount);
      expect(balances().recipient - before.recipient).toBe(amount);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(rows).toEqual([expect.objectContaining({ payerWallet: world.payer.publicKey.toBase58(), amountChargedAtomic: amount })]);
    });
  });
});
