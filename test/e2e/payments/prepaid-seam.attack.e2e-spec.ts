import { Body, Controller, Headers, HttpCode, Module, Post, Res } from '@nestjs/common';
import { Keypair } from '@solana/web3.js';
import type { Response } from 'express';
import { decodePaymentRequiredHeader } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { BodyLimit, SMALL_BODY_LIMIT } from '../../../src/http/body-limits';
import { formatUsdc } from '../../../src/modules/billing/domain/atomic-usdc';
import { PaymentChallenges } from '../../../src/modules/payments/application/payment-challenges';
import { PaymentAcceptance } from '../../../src/modules/payments/application/payment-acceptance';
import { PaymentAttempts } from '../../../src/modules/payments/application/payment-attempts';
import { PaymentsModule } from '../../../src/modules/payments/payments.module';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { pgliteStorage } from '../../support/storage-env';
import { changeSince, fundedPayer, snapshot } from '../../support/settlement-probes';

const SEAM_PATH = '/test/money-final-seam';
const PRICE = { total: 1_050n, providerCost: 1_000n, platformFee: 50n };

/** The paid tools / A2A seam as PrepaidPayments (src/modules/payments/application/prepaid-payments.ts) calls it: PaymentAcceptance.accept settling before the handler, budgeted payers refused. */
@Controller()
class SeamController {
  constructor(
    private readonly payments: PaymentAcceptance,
    private readonly attempts: PaymentAttempts,
    private readonly challenges: PaymentChallenges,
  ) {}

  @Post(SEAM_PATH)
  @BodyLimit(SMALL_BODY_LIMIT)
  @HttpCode(200)
  async pay(@Headers('payment-signature') header: string | undefined, @Body() _body: unknown, @Res({ passthrough: true }) res: Response): Promise<unknown> {
    if (header === undefined) {
      const challenge = this.challenges.challenge(SEAM_PATH, PRICE);
      res.status(402).setHeader('PAYMENT-REQUIRED', challenge.header);
      return challenge.body;
    }
    const attempt = await this.attempts.count('127.0.0.1');
    const payment = await this.payments.accept(header, {
      schemes: ['exact'],
      exactSettlesAt: 'before_handler',
      path: SEAM_PATH,
      quote: PRICE.total,
      requestId: crypto.randomUUID(),
      clientAddress: '127.0.0.1',
      attempt,
      model: null,
      budgetedPayers: 'refuse',
    });
    await payment.release();
    return { accepted: true };
  }
}

@Module({ imports: [PaymentsModule], controllers: [SeamController] })
class SeamModule {}

describe('money-final: the refuse seam and the attempt limit', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    // GW_RATE_LIMIT_MAX 2: 8 payment attempts a minute per client address (4x the paid limit).
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_RATE_LIMIT_MAX: '2' }, { imports: [SeamModule] });
  }, 60_000);
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  const seam = (headers: Record<string, string> = {}) => fetch(`${gateway.url}${SEAM_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
  const seamPayment = async (payer: Keypair) => {
    const quoted = await seam();
    return specPaymentHeader(world, decodePaymentRequiredHeader(quoted.headers.get('payment-required') as string), { payer });
  };

  it('two distinct concurrent payments of one payer against a budget that fits one: one served, one refused, one charge', async () => {
    const payer = fundedPayer(world);
    const a = await quote(gateway, chatBody({ max_tokens: 100 }));
    const b = await quote(gateway, chatBody({ max_tokens: 120 }));
    expect(a.amount).not.toBe(b.amount);
    const limit = a.amount > b.amount ? a.amount : b.amount;
    expect(
      (
        await fetch(`${gateway.url}/v1/wallets/${payer.publicKey.toBase58()}/budget`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          body: JSON.stringify({ daily: Number(formatUsdc(limit)) }),
        })
      ).status,
    ).toBe(200);
    const before = snapshot(world, payer);
    const answers = await Promise.all(
      [
        [chatBody({ max_tokens: 100 }), specPaymentHeader(world, a.header, { payer })],
        [chatBody({ max_tokens: 120 }), specPaymentHeader(world, b.header, { payer })],
      ].map(async ([body, payment]) => {
        const res = await postChat(gateway, body, { 'payment-signature': payment as string, 'x-forwarded-for': '10.9.9.9' });
        await res.text();
        return res.status;
      }),
    );
    expect(answers.sort()).toEqual([200, 400]);
    expect(changeSince(world, payer, before).landed).toBe(1);
  }, 60_000);

  it('a budgeted payer refused at the seam moves nothing and may be refused again (no claim kept)', async () => {
    const payer = fundedPayer(world);
    expect(
      (
        await fetch(`${gateway.url}/v1/wallets/${payer.publicKey.toBase58()}/budget`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          body: JSON.stringify({ daily: 100 }),
        })
      ).status,
    ).toBe(200);
    const payment = await seamPayment(payer);
    const before = snapshot(world, payer);
    for (let i = 0; i < 2; i++) expect((await seam({ 'payment-signature': payment })).status).toBe(403);
    expect(changeSince(world, payer, before)).toMatchObject({ payer: 0n, recipient: 0n, landed: 0 });
  }, 60_000);

  it('ExactPayments.accept documents the per-client payment-attempt limit; a seam caller (tools, A2A) gets none: fresh signed payments are simulated, claimed and written without bound', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const payer = fundedPayer(world, 10_000n); // a fresh funded key pair per request passes the wallet limit
      statuses.push((await seam({ 'payment-signature': await seamPayment(payer) })).status);
    }
    expect(statuses).toContain(429);
  }, 60_000);

  it('held: on chat, payment-bearing requests are bounded per client address (4x GW_RATE_LIMIT_MAX), junk or replay alike', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await postChat(gateway, chatBody(), { 'payment-signature': 'junk' })).status);
    expect(statuses).toContain(429);
  }, 60_000);
});
