import { createKeyPairSignerFromBytes } from '@solana/kit';
import { createTransferInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair } from '@solana/web3.js';
import { ExactSvmScheme } from '@x402/svm';
import OpenAI from 'openai';
import { decodePaymentResponseHeader } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { CHAT_PATH, chatBody, PAID_MODEL, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { paymentInstructions, transferChecked } from '../../support/payment-transactions';
import { migratedDataDir } from '../../support/pglite-data-dir';
import { emptyRedisDatabase, serviceAvailable } from '../../support/services';
import { sseData } from '../../support/upstreams';

const coreClient = require('@x402/core/client') as typeof import('@x402/core/dist/cjs/client');
const { wrapFetchWithPayment } = require('@x402/fetch') as typeof import('@x402/fetch/dist/cjs');
const MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const REPLAYED = { error: { type: 'invalid_payment', message: 'transaction has already been used; each payment signature may only be submitted once', code: 'payment.replayed', param: null } };
const UNVERIFIABLE = { error: { type: 'invalid_payment', message: 'Payment verification failed. Check your transaction and retry.', code: 'payment.unverifiable', param: null } };

describe('x402 payments end to end on the local chain', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, { GW_STORAGE: undefined, GW_DATA_DIR: await migratedDataDir(), GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  const balances = (): { payer: bigint; recipient: bigint } => ({ payer: world.localnet.usdcBalance(world.payer.publicKey), recipient: world.localnet.usdcBalance(world.recipient.publicKey) });

  it('the unmodified @x402/fetch client pays with gateway-sponsored fees; the recipient gains exactly the quote', async () => {
    const buyer = Keypair.generate();
    world.localnet.fundUsdc(buyer.publicKey, 1_000_000n); // no SOL: the gateway's fee payer pays the fee
    const client = new coreClient.x402Client().register(MAINNET, new ExactSvmScheme(await createKeyPairSignerFromBytes(buyer.secretKey), { rpcUrl: world.localnet.url }));
    const paidFetch = wrapFetchWithPayment(fetch, client);
    const { amount } = await quote(gateway, chatBody());
    const recipientBefore = world.localnet.usdcBalance(world.recipient.publicKey);

    const res = await paidFetch(`${gateway.url}${CHAT_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chatBody()) });

    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toBe('fake openai reply to: Say hello');
    expect(world.localnet.usdcBalance(world.recipient.publicKey) - recipientBefore).toBe(amount);
    expect(world.localnet.usdcBalance(buyer.publicKey)).toBe(1_000_000n - amount);
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response') as string);
    expect(settlement).toMatchObject({ success: true, network: MAINNET, payer: buyer.publicKey.toBase58() });
    expect(res.headers.get('x-gw-receipt')).toMatch(/^\/v1\/receipts\/[0-9a-f-]{36}$/);
    expect(res.headers.get('x-gw-session')).toMatch(/^v1\./);
    const receipt = (await (await fetch(`${gateway.url}${res.headers.get('x-gw-receipt')}`)).json()) as Record<string, unknown>;
    expect(receipt).toMatchObject({
      status: 'settled',
      scheme: 'exact',
      payer_wallet: buyer.publicKey.toBase58(),
      pay_to: world.recipient.publicKey.toBase58(),
      transaction_signature: settlement.transaction,
      amount_quoted_atomic: amount.toString(),
      amount_paid_atomic: amount.toString(),
      amount_charged_atomic: amount.toString(),
      endpoint: CHAT_PATH,
      model: PAID_MODEL,
    });
  });

  it('a spec-form client (snake_case payload, client-paid fees) pays for a JSON answer', async () => {
    const { header, amount } = await quote(gateway, chatBody());
    const before = balances();
    const res = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header), 'x-gw-debug': 'true' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gw-payment-status')).toBe('settled');
    expect(balances()).toEqual({ payer: before.payer - amount, recipient: before.recipient + amount });
  });

  it('a spec-form client pays for a stream: settled before [DONE], receipt header decided before the stream', async () => {
    const body = chatBody({ stream: true });
    const { header, amount } = await quote(gateway, body);
    const before = balances();
    const res = await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header) });
    expect(res.headers.get('x-gw-receipt')).toMatch(/^\/v1\/receipts\//);
    const data = await sseData(res);
    expect(data[data.length - 1]).toBe('[DONE]');
    expect(balances()).toEqual({ payer: before.payer - amount, recipient: before.recipient + amount });
    const receipt = (await (await fetch(`${gateway.url}${res.headers.get('x-gw-receipt')}`)).json()) as { status: string };
    expect(receipt.status).toBe('settled');
  });

  it('the openai client pays too once it carries the header (the paid path is OpenAI-compatible)', async () => {
    const { header } = await quote(gateway, chatBody());
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'payment-signature': specPaymentHeader(world, header) } });
    const completion = await client.chat.completions.create(chatBody() as never);
    expect(completion.choices[0].message.content).toBe('fake openai reply to: Say hello');
  });

  it('a paid request to an OpenAI reasoning model with a temperature is served and charged once: the setting it refuses is dropped and listed', async () => {
    const body = chatBody({ model: 'openai/o4-mini', temperature: 0.3, logprobs: true, reasoning_effort: 'low' });
    const { header, amount } = await quote(gateway, body);
    const before = balances();

    const res = await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header), 'x-gw-debug': 'true' });

    expect(res.status).toBe(200);
    expect(res.headers.get('x-gw-params-dropped')).toBe('temperature, logprobs');
    const sent = world.upstreams.openai.requests[0].body as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'o4-mini', reasoning_effort: 'low' });
    expect(sent).not.toHaveProperty('temperature');
    expect(balances()).toEqual({ payer: before.payer - amount, recipient: before.recipient + amount });
  });

  it('logprobs asked on a paid call come back in the JSON answer, rebuilt from the upstream stream', async () => {
    const body = chatBody({ logprobs: true, top_logprobs: 1 });
    const { header } = await quote(gateway, body);

    const res = await postChat(gateway, body, { 'payment-signature': specPaymentHeader(world, header) });

    expect(res.status).toBe(200);
    const completion = (await res.json()) as { choices: Array<{ message: { content: string }; logprobs: { content: Array<{ token: string }> } | null }> };
    expect(completion.choices[0].logprobs?.content.map((entry) => entry.token).join('')).toBe(completion.choices[0].message.content);
  });

  it('a replayed header: 402 with the replay message and no second transfer', async () => {
    const { header, amount } = await quote(gateway, chatBody());
    const payment = specPaymentHeader(world, header);
    const before = balances();
    expect((await postChat(gateway, chatBody(), { 'payment-signature': payment })).status).toBe(200);
    const replay = await postChat(gateway, chatBody(), { 'payment-signature': payment });
    expect(replay.status).toBe(402);
    expect(await replay.json()).toEqual(REPLAYED);
    expect(balances()).toEqual({ payer: before.payer - amount, recipient: before.recipient + amount });
  });

  it('the same payment 20 times in parallel: exactly one 200 and one transfer', async () => {
    const { header, amount } = await quote(gateway, chatBody());
    const payment = specPaymentHeader(world, header);
    const before = balances();
    const sentBefore = world.localnet.sentTransactions().length;
    const results = await Promise.all(Array.from({ length: 20 }, () => postChat(gateway, chatBody(), { 'payment-signature': payment })));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array<number>(19).fill(402)]);
    expect(world.localnet.sentTransactions().length - sentBefore).toBe(1);
    expect(balances()).toEqual({ payer: before.payer - amount, recipient: before.recipient + amount });
    expect(world.upstreams.openai.requests).toHaveLength(1);
  });

  describe('refused payments: the spec status and message, before any provider call, no balance moved', () => {
    const wrongMint = Keypair.generate().publicKey;
    const cases: Array<[string, (w: PaidWorld, h: Parameters<typeof specPaymentHeader>[1]) => string, number, unknown]> = [
      [
        'wrong mint (accepted.asset)',
        (w, h) => specPaymentHeader(w, h, { accepted: { asset: wrongMint.toBase58() } }),
        400,
        { error: { type: 'bad_request', message: expect.stringMatching(/^payment asset does not match; use the asset advertised in the 402 \(/), code: 'payment.asset_mismatch', param: null } },
      ],
      [
        'wrong recipient (accepted.pay_to)',
        (w, h) => specPaymentHeader(w, h, { accepted: { payTo: Keypair.generate().publicKey.toBase58() } }),
        400,
        { error: { type: 'bad_request', message: expect.stringMatching(/^payment recipient does not match/), code: 'payment.recipient_mismatch', param: null } },
      ],
      [
        'wrong network',
        (w, h) => specPaymentHeader(w, h, { accepted: { network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' } }),
        400,
        { error: { type: 'bad_request', message: expect.stringMatching(/^payment network does not match/), code: 'payment.network_mismatch', param: null } },
      ],
      [
        'an amount below the quote',
        (w, h) => specPaymentHeader(w, h, { amount: BigInt(h.accepts[0].amount) - 1n }),
        400,
        { error: { type: 'bad_request', message: expect.stringMatching(/^payment amount insufficient: paid \d+ but cost is \d+ atomic USDC$/), code: 'payment.amount_insufficient', param: null } },
      ],
      [
        'another resource',
        (w, h) => specPaymentHeader(w, h, { resourceUrl: '/v1/search' }),
        400,
        {
          error: {
            type: 'bad_request',
            message: 'payment resource does not match this endpoint; use the resource advertised in the 402 (POST /v1/chat/completions)',
            code: 'payment.resource_mismatch',
            param: null,
          },
        },
      ],
      [
        'a transfer of another mint inside the transaction',
        (w, h) => specPaymentHeader(w, h, { instructions: (p) => paymentInstructions(transferChecked(p, { amount: BigInt(h.accepts[0].amount), mint: wrongMint })) }),
        402,
        UNVERIFIABLE,
      ],
      [
        'a transfer to another recipient inside the transaction',
        (w, h) =>
          specPaymentHeader(w, h, {
            instructions: (p) => paymentInstructions(transferChecked(p, { amount: BigInt(h.accepts[0].amount), destination: getAssociatedTokenAddressSync(p.mint, Keypair.generate().publicKey) })),
          }),
        402,
        UNVERIFIABLE,
      ],
      [
        'a plain Transfer',
        (w, h) =>
          specPaymentHeader(w, h, {
            instructions: (p) => [
              createTransferInstruction(getAssociatedTokenAddressSync(p.mint, p.payer.publicKey), getAssociatedTokenAddressSync(p.mint, p.payTo), p.payer.publicKey, BigInt(h.accepts[0].amount)),
            ],
          }),
        402,
        UNVERIFIABLE,
      ],
      ['an unsigned transaction', (w, h) => specPaymentHeader(w, h, { signers: [] }), 402, UNVERIFIABLE],
      [
        "a transfer out of the gateway's fee payer",
        (w, h) =>
          specPaymentHeader(w, h, {
            layout: 'sponsored',
            signers: [w.feePayer],
            instructions: (p) => paymentInstructions(transferChecked(p, { amount: BigInt(h.accepts[0].amount), authority: w.feePayer.publicKey })),
          }),
        402,
        UNVERIFIABLE,
      ],
      [
        'a payer without funds',
        (w, h) => specPaymentHeader(w, h, { payer: unfunded(w) }),
        402,
        { error: { type: 'invalid_payment', message: expect.any(String), code: 'payment.insufficient_funds', param: null } },
      ],
      [
        'a header that is not a payment',
        () => 'bm90IGEgcGF5bWVudA==',
        402,
        { error: { type: 'invalid_payment', message: expect.stringMatching(/^malformed PAYMENT-SIGNATURE header: /), code: 'payment.malformed', param: null } },
      ],
    ];
    it.each(cases)('%s', async (_name, makeHeader, status, body) => {
      const { header } = await quote(gateway, chatBody());
      const before = balances();
      const res = await postChat(gateway, chatBody(), { 'payment-signature': makeHeader(world, header) });
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual(body);
      expect(world.upstreams.openai.requests).toHaveLength(0);
      expect(balances()).toEqual(before);
    });
  });

  it('the provider failing after verification: 503, nothing charged, and the same payment accepted once the provider is back', async () => {
    const { header, amount } = await quote(gateway, chatBody());
    const payment = specPaymentHeader(world, header);
    const before = balances();
    world.upstreams.openai.setDefault({ kind: 'status', status: 503 });
    const failed = await postChat(gateway, chatBody(), { 'payment-signature': payment });
    expect(failed.status).toBe(503);
    expect(((await failed.json()) as { error: { type: string } }).error.type).toBe('upstream_unavailable');
    expect(balances()).toEqual(before);
    // The error names the receipt, which proves nothing was charged.
    const receipt = (await (await fetch(`${gateway.url}${failed.headers.get('x-gw-receipt') ?? '/none'}`)).json()) as { status?: string };
    expect(receipt.status).toBe('not_charged');

    world.upstreams.openai.setDefault({ kind: 'reply' });
    const retried = await postChat(gateway, chatBody(), { 'payment-signature': payment });
    expect(retried.status).toBe(200);
    expect(balances()).toEqual({ payer: before.payer - amount, recipient: before.recipient + amount });
  });

  it('counts payments and settlements, and times verification and settlement, in /metrics', async () => {
    const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
    expect(metrics).toMatch(/gw_payments_total\{outcome="accepted"\} [1-9]/);
    expect(metrics).toMatch(/gw_payments_total\{outcome="invalid_payment"\} [1-9]/);
    expect(metrics).toMatch(/gw_settlements_total\{result="settled"\} [1-9]/);
    expect(metrics).toMatch(/gw_settlements_total\{result="not_charged"\} [1-9]/);
    expect(metrics).toMatch(/gw_payment_duration_seconds_count\{stage="verify"\} [1-9]/);
    expect(metrics).toMatch(/gw_payment_duration_seconds_count\{stage="settle"\} [1-9]/);
  });

  it('a payment the chain refuses at its broadcast (first content): 500 settlement_failed, the answer withheld, the receipt says not_charged, nothing moved', async () => {
    const { header } = await quote(gateway, chatBody());
    const before = balances();
    world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 400 });
    const pending = postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });
    await world.upstreams.openai.arrived(0); // verified and claimed; the provider is answering
    world.localnet.expireBlockhash(); // the transaction can no longer land
    const res = await pending;
    expect(res.status).toBe(500);
    const { error } = (await res.json()) as { error: { type: string; message: string; code: string } };
    expect(error.type).toBe('settlement_failed');
    expect(error.code).toBe('payment.settlement_failed');
    const receiptPath = /^the payment could not be settled on chain, so the answer was not delivered; nothing was charged; the receipt (\/v1\/receipts\/[0-9a-f-]{36}) records the attempt$/.exec(
      error.message,
    )?.[1];
    expect(receiptPath).toBeDefined();
    const receipt = (await (await fetch(`${gateway.url}${receiptPath}`)).json()) as Record<string, unknown>;
    expect(receipt).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0', settled_at: null });
    expect(balances()).toEqual(before);
  });

  it('a client that leaves a paid stream after it began is charged, and its payment cannot be used again', async () => {
    const body = chatBody({ stream: true });
    const { header, amount } = await quote(gateway, body);
    const payment = specPaymentHeader(world, header);
    const before = balances();
    world.upstreams.openai.script({ kind: 'reply', text: 'one two three four five six seven eight', chunkDelayMs: 150 });
    const controller = new AbortController();
    const res = await postChat(gateway, body, { 'payment-signature': payment }, controller.signal);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let received = '';
    while (!received.includes('"content":"one')) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await until(() => balances().recipient === before.recipient + amount);
    expect(balances()).toEqual({ payer: before.payer - amount, recipient: before.recipient + amount });
    const again = await postChat(gateway, body, { 'payment-signature': payment });
    expect(again.status).toBe(402);
    expect(await again.json()).toEqual(REPLAYED);
  });

  it('an expired blockhash: 402 invalid_payment', async () => {
    const { header } = await quote(gateway, chatBody());
    const payment = specPaymentHeader(world, header);
    world.localnet.expireBlockhash();
    const res = await postChat(gateway, chatBody(), { 'payment-signature': payment });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'invalid_payment', code: 'payment.blockhash_expired' });
  });

  it('a payment header over 50 KB is 402 invalid_payment; a 49 KB one is accepted', async () => {
    const { header } = await quote(gateway, chatBody());
    const raw = (size: number): string => {
      const json = Buffer.from(specPaymentHeader(world, header), 'base64').toString('utf8');
      // Whitespace inside the JSON keeps it valid (raw JSON is an accepted form) and pads it to size.
      return json.replace('{', `{${' '.repeat(size - Buffer.byteLength(json))}`);
    };
    const tooBig = await postChat(gateway, chatBody(), { 'payment-signature': raw(50 * 1024 + 1) });
    expect(tooBig.status).toBe(402);
    expect(await tooBig.json()).toEqual({ error: { type: 'invalid_payment', message: 'PAYMENT-SIGNATURE exceeds 50 KB', code: 'payment.header_too_large', param: null } });
    const fits = await postChat(gateway, chatBody(), { 'payment-signature': raw(49 * 1024) });
    expect(fits.status).toBe(200);
  });

  it('an escrow payload under the exact scheme is a 400, never downgraded; a channel payload is a 404', async () => {
    const { header } = await quote(gateway, chatBody());
    const offer = header.accepts[0];
    const accepted = { scheme: 'exact', network: offer.network, amount: offer.amount, asset: offer.asset, pay_to: offer.payTo, max_timeout_seconds: 300 };
    const escrow = {
      x402_version: 2,
      resource: { url: CHAT_PATH, method: 'POST' },
      accepted,
      payload: { deposit_tx: Buffer.alloc(10).toString('base64'), service_id: Buffer.alloc(32).toString('base64'), agent_pubkey: world.payer.publicKey.toBase58() },
    };
    const res = await postChat(gateway, chatBody(), { 'payment-signature': JSON.stringify(escrow) });
    expect(await res.json()).toEqual({ error: { type: 'bad_request', message: 'payment scheme exact does not match its escrow payload', code: 'payment.scheme_payload_mismatch', param: null } });
    const channel = { ...escrow, payload: { request_digest: Buffer.alloc(32).toString('base64'), cumulative: '100', expiry_slot: 1000, signature: 'x' } };
    const channelRes = await postChat(gateway, chatBody(), { 'payment-signature': JSON.stringify(channel) });
    expect(channelRes.status).toBe(404);
  });
});

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function unfunded(world: PaidWorld): Keypair {
  const payer = Keypair.generate();
  world.localnet.airdrop(payer.publicKey, 1_000_000_000);
  world.localnet.createTokenAccount(payer.publicKey);
  return payer;
}

describe('paid requests: storage off, the paid rate limit, replay across instances', () => {
  let world: PaidWorld;

  beforeAll(async () => {
    world = await startPaidWorld();
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(() => world.close());

  it('with GW_STORAGE=none a paid answer carries no X-Gw-Receipt, and the receipt route answers 503', async () => {
    const gateway = await startPaidGateway(world, { GW_STORAGE: 'none' });
    try {
      const { header } = await quote(gateway, chatBody());
      const res = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-gw-receipt')).toBeNull();
      expect(res.headers.get('payment-response')).not.toBeNull();
      const receipts = await fetch(`${gateway.url}/v1/receipts/0f8fad5b-d9cb-469f-a165-70867728950e`);
      expect(receipts.status).toBe(503);
      expect(await receipts.json()).toEqual({ error: { type: 'service_unavailable', message: 'receipt storage is not configured', code: 'receipt.storage_not_configured', param: null } });
    } finally {
      await gateway.close();
    }
  });

  it('limits paid requests per payer wallet (GW_RATE_LIMIT_MAX), with the spec headers; health and models are exempt', async () => {
    const gateway = await startPaidGateway(world, { GW_RATE_LIMIT_MAX: '3' });
    try {
      const { header } = await quote(gateway, chatBody()); // one quote: one request on this client's IP bucket
      for (let i = 0; i < 3; i++) {
        const res = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('3');
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
      }
      const before = world.localnet.usdcBalance(world.payer.publicKey);
      const refused = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header) });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ error: { type: 'rate_limit_exceeded', message: 'Too many requests. Please slow down.', code: 'rate_limit.exceeded', param: null } });
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(world.localnet.usdcBalance(world.payer.publicKey)).toBe(before);
      // Another wallet is not affected by this one's bucket... but quotes from this IP are (one used, two left).
      expect((await postChat(gateway, chatBody())).status).toBe(402);
      expect((await postChat(gateway, chatBody())).status).toBe(402);
      expect((await postChat(gateway, chatBody())).status).toBe(429);
      for (let i = 0; i < 5; i++) {
        expect((await fetch(`${gateway.url}/v1/models`)).status).toBe(200);
        expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
      }
    } finally {
      await gateway.close();
    }
  });

  const describeWithRedis = serviceAvailable('redis') ? describe : describe.skip;
  describeWithRedis('two gateways sharing Redis', () => {
    it('refuse on one instance a payment the other served', async () => {
      const url = await emptyRedisDatabase(8);
      const [one, two] = await Promise.all([startPaidGateway(world, { REDIS_URL: url }), startPaidGateway(world, { REDIS_URL: url })]);
      try {
        const { header } = await quote(one, chatBody());
        const payment = specPaymentHeader(world, header);
        expect((await postChat(one, chatBody(), { 'payment-signature': payment })).status).toBe(200);
        const replay = await postChat(two, chatBody(), { 'payment-signature': payment });
        expect(replay.status).toBe(402);
        expect(((await replay.json()) as { error: { message: string } }).error.message).toBe('transaction has already been used; each payment signature may only be submitted once');
        // And in parallel across both, one copy wins.
        const fresh = specPaymentHeader(world, header);
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => postChat(i % 2 ? one : two, chatBody(), { 'payment-signature': fresh })));
        expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });
  });
});
