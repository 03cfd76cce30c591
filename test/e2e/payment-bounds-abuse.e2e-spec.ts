import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { chatBody, postChat, quote, specPaymentHeader } from '../support/paid-gateway';
import { paymentInstructions, transferChecked } from '../support/payment-transactions';
import { changeSince, fundedPayer, snapshot } from '../support/settlement-probes';
import { useSettlementWorld } from '../support/settlement-world';

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
