import { Body, Controller, Headers, HttpCode, Module, Post, Res } from '@nestjs/common';
import { Keypair } from '@solana/web3.js';
import type { Response } from 'express';
import { decodePaymentRequiredHeader } from '../../libs/x402';
import type { RunningGateway } from '../../src/gateway';
import { PaymentChallenges } from '../../src/modules/payments/application/payment-challenges';
import { ExactPayments } from '../../src/modules/payments/application/exact-payments';
import { PaymentsModule } from '../../src/modules/payments/payments.module';
import { TEST_ADMIN_TOKEN } from '../support/gateway-harness';
import { specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../support/paid-gateway';
import { pgliteStorage } from '../support/storage-env';

const SEAM_PATH = '/test/tool-seam';
const PRICE = { total: 1_050n, providerCost: 1_000n, platformFee: 50n };

/**
 * Where the paid tools and A2A will take payments: the same ExactPayments, with budgeted payers
 * refused. The route releases an accepted payment unused, so only the verdict is under test.
 */
@Controller()
class ToolSeamController {
  constructor(
    private readonly payments: ExactPayments,
    private readonly challenges: PaymentChallenges,
  ) {}

  @Post(SEAM_PATH)
  @HttpCode(200)
  async pay(@Headers('payment-signature') header: string | undefined, @Body() _body: unknown, @Res({ passthrough: true }) res: Response): Promise<unknown> {
    if (header === undefined) {
      const challenge = this.challenges.challenge(SEAM_PATH, PRICE);
      res.status(402).setHeader('PAYMENT-REQUIRED', challenge.header);
      return challenge.body;
    }
    const attempt = await this.payments.countAttempt('127.0.0.1');
    const payment = await this.payments.accept(header, {
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

@Module({ imports: [PaymentsModule], controllers: [ToolSeamController] })
class ToolSeamModule {}

describe('a budgeted payer on a surface without budgets (the paid tools and A2A seam)', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { imports: [ToolSeamModule] });
  });
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  const post = (headers: Record<string, string> = {}) => fetch(`${gateway.url}${SEAM_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
  const paymentFrom = async (payer: Keypair) => {
    const quoted = await post();
    expect(quoted.status).toBe(402);
    return specPaymentHeader(world, decodePaymentRequiredHeader(quoted.headers.get('payment-required') as string), { payer });
  };
  const usdc = (owner: Keypair) => world.localnet.usdcBalance(owner.publicKey);

  it('is refused with 403 after verification and before the claim, with nothing moved; an unbudgeted payer is accepted', async () => {
    const budgeted = world.payer;
    const free = Keypair.generate();
    world.localnet.airdrop(free.publicKey, 1_000_000_000);
    world.localnet.fundUsdc(free.publicKey, 1_000_000n);
    const setBudget = await fetch(`${gateway.url}/v1/wallets/${budgeted.publicKey.toBase58()}/budget`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: JSON.stringify({ daily: 100 }),
    });
    expect(setBudget.status).toBe(200);
    const before = usdc(budgeted);

    const refused = await post({ 'payment-signature': await paymentFrom(budgeted) });

    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'forbidden', code: 'budget.payer_budgeted' });
    expect(usdc(budgeted)).toBe(before);
    const accepted = await post({ 'payment-signature': await paymentFrom(free) });
    expect(await accepted.json()).toEqual({ accepted: true });
  });
});
