import { createKeyPairSignerFromBytes } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { ExactSvmScheme } from '@x402/svm';
import { decodePaymentRequiredHeader } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { CHAT_PATH } from '../../../src/modules/chat/application/completion-outcome';
import { settleResponseSchema } from '../../fixtures/x402-settle-response-schema';
import { a2aCall, userMessage, type A2AResponse } from '../../support/a2a-client';
import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, PAID_MODEL, type PaidWorld } from '../../support/paid-gateway';
import { sseDataOf, streamedContent } from '../../support/settlement-probes';
import { pgliteStorage } from '../../support/storage-env';
import { expectOfficialX402Headers } from '../../support/x402-conformance';

const coreClient = require('@x402/core/client') as typeof import('@x402/core/dist/cjs/client');
const { wrapFetchWithPayment } = require('@x402/fetch') as typeof import('@x402/fetch/dist/cjs');
type PaymentResponseContext = Parameters<Parameters<InstanceType<typeof coreClient.x402Client>['onPaymentResponse']>[0]>[0];

const MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
/** The reason a payment whose blockhash expired (or would before the answer) is refused with: re-signing is safe, since nothing moved. */
const RESIGN = 'invalid_exact_svm_payload_transaction';

describe('the official x402 clients, unmodified, against the gateway on the local chain', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, (await pgliteStorage()).env);
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  /** A buyer with USDC and no SOL (the gateway sponsors its fee), and the official client holding its key. */
  async function officialBuyer(): Promise<{ buyer: Keypair; client: InstanceType<typeof coreClient.x402Client> }> {
    const buyer = Keypair.generate();
    world.localnet.fundUsdc(buyer.publicKey, 1_000_000n);
    const client = new coreClient.x402Client().register(MAINNET, new ExactSvmScheme(await createKeyPairSignerFromBytes(buyer.secretKey), { rpcUrl: world.localnet.url }));
    return { buyer, client };
  }
  const recipient = (): bigint => world.localnet.usdcBalance(world.recipient.publicKey);
  const post = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('@x402/fetch pays a chat stream and reads its settle response from the headers: broadcast, not yet confirmed', async () => {
    const { buyer, client } = await officialBuyer();
    const body = chatBody({ stream: true });
    const { amount } = await quote(gateway, body);
    const before = recipient();

    const res = await wrapFetchWithPayment(fetch, client)(`${gateway.url}${CHAT_PATH}`, post(body));

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expectOfficialX402Headers(res.headers);
    const settled = new coreClient.x402HTTPClient(client).getPaymentSettleResponse((name) => res.headers.get(name));
    expect(settled).toEqual({ success: true, transaction: expect.any(String), network: MAINNET, payer: buyer.publicKey.toBase58(), extra: { confirmed: false } });
    const data = sseDataOf(await res.text());
    expect(streamedContent(data)).toBe('fake openai reply to: Say hello');
    expect(data[data.length - 1]).toBe('[DONE]');
    expect(recipient() - before).toBe(amount);
    const receipt = (await (await fetch(`${gateway.url}${res.headers.get('x-gw-receipt')}`)).json()) as { transaction_signature: string };
    expect(receipt.transaction_signature).toBe(settled.transaction);
  });

  describe('a refused payment tells the client why in the headers the official client reads', () => {
    /** The official client's reading of a refusal: the challenge it would pay again, with the reason. */
    async function officialReading(res: Response): Promise<{ error: string | undefined; amount: string }> {
      const envelope = (await res.json()) as unknown;
      const required = new coreClient.x402HTTPClient(new coreClient.x402Client()).getPaymentRequiredResponse((name) => res.headers.get(name), envelope);
      return { error: required.error, amount: required.accepts[0].amount };
    }

    it.each([
      ['replayed', 'duplicate_settlement', 'payment.replayed'],
      ['undecodable', 'invalid_exact_svm_payload_transaction_could_not_be_decoded', 'payment.malformed'],
      ['unsigned', RESIGN, 'payment.unverifiable'],
      ['signed against an expired blockhash', RESIGN, 'payment.blockhash_expired'],
      ['from a payer without the funds', 'invalid_exact_svm_transaction_simulation_failed', 'payment.insufficient_funds'],
    ] as const)('%s: 402 with the envelope, a fresh PAYMENT-REQUIRED naming %s, no PAYMENT-RESPONSE', async (kind, reason, code) => {
      const body = chatBody();
      const { header, amount } = await quote(gateway, body);
      const payment = await refusedPayment(kind, header);

      const res = await postChat(gateway, body, { 'payment-signature': payment });

      expect(res.status).toBe(402);
      expect(res.headers.get('payment-response')).toBeNull();
      expect(decodePaymentRequiredHeader(res.headers.get('payment-required') as string).error).toBe(reason);
      const reading = await officialReading(res.clone());
      expect(reading).toEqual({ error: reason, amount: amount.toString() });
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    });

    async function refusedPayment(kind: string, header: Awaited<ReturnType<typeof quote>>['header']): Promise<string> {
      switch (kind) {
        case 'replayed': {
          // Spent on another request first: this one is then a replay, not a redelivery.
          const other = chatBody({ messages: [{ role: 'user', content: 'Say hellp' }] });
          const payment = specPaymentHeader(world, (await quote(gateway, other)).header);
          expect((await postChat(gateway, other, { 'payment-signature': payment })).status).toBe(200);
          return payment;
        }
        case 'undecodable':
          return Buffer.from('{"x402Version":2,"payload":').toString('base64');
        case 'unsigned':
          return specPaymentHeader(world, header, { signers: [] });
        case 'signed against an expired blockhash': {
          const payment = specPaymentHeader(world, header);
          world.localnet.expireBlockhash();
          return payment;
        }
        default: {
          const broke = Keypair.generate();
          world.localnet.airdrop(broke.publicKey, 10_000_000);
          world.localnet.fundUsdc(broke.publicKey, 1n);
          return specPaymentHeader(world, header, { payer: broke });
        }
      }
    }

    it('a payment at odds with the offer (400) carries no x402 header', async () => {
      const body = chatBody();
      const { header } = await quote(gateway, body);
      const res = await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header, { accepted: { payTo: Keypair.generate().publicKey.toBase58() } }) });
      expect(res.status).toBe(400);
      expect(res.headers.get('payment-required')).toBeNull();
      expect(res.headers.get('payment-response')).toBeNull();
    });
  });

  describe('an onPaymentResponse hook that pays again only where nothing can have moved', () => {
    /** Pays fresh after a refusal that re-signing cures (an expired blockhash), never after duplicate_settlement, which could charge twice. */
    const resignOnlyWhenSafe = async (context: PaymentResponseContext): Promise<void | { recovered: true }> => {
      seen.push(context.paymentRequired?.error ?? (context.settleResponse?.success ? 'settled' : 'none'));
      if (context.paymentRequired?.error === RESIGN) return { recovered: true };
    };
    let seen: string[];
    /** @x402/fetch hands its fetch a Request; its headers are read without spending its body. */
    const paymentOf = (input: Parameters<typeof fetch>[0]): string | null => (input instanceof Request ? input.headers.get('payment-signature') : null);
    beforeEach(() => {
      seen = [];
    });

    it('an expired blockhash: the hook recovers, the client signs afresh, the answer is paid once', async () => {
      const { buyer, client } = await officialBuyer();
      client.onPaymentResponse(resignOnlyWhenSafe);
      const body = chatBody();
      const { amount } = await quote(gateway, body);
      const before = recipient();
      let signed = 0;
      // The first payment's blockhash expires on its way to the gateway.
      const expiring: typeof fetch = (input, init) => {
        if (paymentOf(input) !== null && signed++ === 0) world.localnet.expireBlockhash();
        return fetch(input, init);
      };

      const res = await wrapFetchWithPayment(expiring, client)(`${gateway.url}${CHAT_PATH}`, post(body));

      expect(res.status).toBe(200);
      expect(seen).toEqual([RESIGN, 'settled']);
      expect(recipient() - before).toBe(amount);
      expect(world.localnet.usdcBalance(buyer.publicKey)).toBe(1_000_000n - amount);
    });

    it('duplicate_settlement: the hook does not recover, the client gets the 402, and nothing more is paid', async () => {
      const { buyer, client } = await officialBuyer();
      client.onPaymentResponse(resignOnlyWhenSafe);
      const body = chatBody();
      const other = chatBody({ messages: [{ role: 'user', content: 'Say hellp' }] });
      const { amount } = await quote(gateway, body);
      const before = recipient();
      // Someone spends the payment on another request before it arrives.
      const spentOnTheWay: typeof fetch = async (input, init) => {
        const payment = paymentOf(input);
        if (payment !== null) expect((await postChat(gateway, other, { 'payment-signature': payment })).status).toBe(200);
        return fetch(input, init);
      };

      const res = await wrapFetchWithPayment(spentOnTheWay, client)(`${gateway.url}${CHAT_PATH}`, post(body));

      expect(res.status).toBe(402);
      expect(seen).toEqual(['duplicate_settlement']);
      expect(recipient() - before).toBe(amount);
      expect(world.localnet.usdcBalance(buyer.publicKey)).toBe(1_000_000n - amount);
    });
  });

  describe('A2A', () => {
    type Required = Parameters<InstanceType<typeof coreClient.x402Client>['createPaymentPayload']>[0];
    async function a2aQuote(): Promise<{ taskId: string; required: Required }> {
      const { body } = await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL, max_tokens: 50 }));
      return { taskId: body.result!.id, required: body.result!.status.message!.metadata!['x402.payment.required'] as Required };
    }
    const a2aPay = async (taskId: string, payload: unknown): Promise<A2AResponse> =>
      (await a2aCall(gateway, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, taskId))).body;

    it('the official x402 client signs the quote straight from x402.payment.required; the task completes with SettleResponse receipts', async () => {
      const { buyer, client } = await officialBuyer();
      const { taskId, required } = await a2aQuote();
      const before = recipient();

      const done = await a2aPay(taskId, await client.createPaymentPayload(required));

      expect(done.result?.status.state).toBe('completed');
      const amount = BigInt(required.accepts[0].amount);
      expect(recipient() - before).toBe(amount);
      expect(world.localnet.usdcBalance(buyer.publicKey)).toBe(1_000_000n - amount);
      const [receipt] = done.result?.status.message?.metadata?.['x402.payment.receipts'] as unknown[];
      expect(settleResponseSchema.safeParse(receipt).success).toBe(true);
      expect(receipt).toMatchObject({ success: true, network: MAINNET, transaction: expect.any(String), tx_signature: expect.any(String) });
    });

    it('a payment whose accepted spells a field both ways with different values is -32007, and nothing moves', async () => {
      const { client } = await officialBuyer();
      const { taskId, required } = await a2aQuote();
      const payload = await client.createPaymentPayload(required);
      const before = recipient();
      const twoMinds = { ...payload, accepted: { ...payload.accepted, pay_to: Keypair.generate().publicKey.toBase58() } };

      const answer = await a2aPay(taskId, twoMinds);

      expect(answer.error?.code).toBe(-32007);
      expect(recipient()).toBe(before);
    });
  });
});
