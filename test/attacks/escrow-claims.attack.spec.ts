import { createCloseAccountInstruction, createTransferInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, LAMPORTS_PER_SOL, MessageV0, type TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { escrowPda, refundInstruction } from '../../libs/escrow';
import type { RunningGateway } from '../../src/gateway';
import { escrowPaymentHeader } from '../support/escrow-payments';
import { TEST_ADMIN_TOKEN } from '../support/gateway-harness';
import { chatBody, postChat, startPaidGateway, startPaidWorld, type PaidWorld } from '../support/paid-gateway';
import { pgliteStorage } from '../support/storage-env';

/**
 * Adversarial probes of the escrow claim (commit 65c814f). Each asserts the correct behaviour:
 * they fail while the weakness exists.
 */

interface ReceiptBody {
  status: string;
  amount_quoted_atomic: string;
  amount_paid_atomic: string;
  amount_charged_atomic: string;
  escrow?: { deposit_atomic: string; claimed_atomic: string | null; refunded_atomic: string | null };
}

const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('escrow claims under attack', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld({ escrow: true });
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_CLAIM_INTERVAL_MS: '50' });
  });
  afterEach(() => world.upstreams.resetAll());
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  const receipt = async (path: string): Promise<ReceiptBody> => (await (await fetch(`${gateway.url}${path}`)).json()) as ReceiptBody;
  const quoteAmount = async (body: Record<string, unknown>): Promise<bigint> => {
    const res = await postChat(gateway, body);
    const quote = (await res.json()) as { accepts: Array<{ scheme: string; amount: string }> };
    return BigInt((quote.accepts.find((entry) => entry.scheme === 'escrow') as { amount: string }).amount);
  };
  const send = async (signer: Keypair, instructions: TransactionInstruction[]): Promise<unknown> => {
    const transaction = new VersionedTransaction(MessageV0.compile({ payerKey: signer.publicKey, recentBlockhash: world.localnet.latestBlockhash().blockhash, instructions }));
    transaction.sign([signer]);
    const res = await fetch(world.localnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [Buffer.from(transaction.serialize()).toString('base64'), { encoding: 'base64' }] }),
    });
    return res.json();
  };

  it('an agent that closes its token account while being served cannot keep both the answer and its deposit', async () => {
    const body = chatBody();
    const amount = await quoteAmount(body);
    const agent = Keypair.generate();
    world.localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL);
    // Exactly the deposit: once it lands the agent's token account is empty and can be closed.
    world.localnet.fundUsdc(agent.publicKey, amount);
    const agentAta = getAssociatedTokenAddressSync(world.mint, agent.publicKey);
    // The upstream is slow: the deposit has landed well before the first token.
    world.upstreams.openai.setDefault({ kind: 'reply', firstByteDelayMs: 1_500 });
    const { header, serviceId, expirySlot } = await escrowPaymentHeader(world, gateway, { agent, amount });
    const escrow = escrowPda(world.escrow!.programId, agent.publicKey, serviceId)[0];
    const served = postChat(gateway, body, { 'payment-signature': header });
    await until(
      async () => world.localnet.escrowAccount(escrow),
      (account) => account !== null,
      5_000,
    );
    // While the answer is produced: close the (now empty) token account the claim must pay the rest into.
    await send(agent, [createCloseAccountInstruction(agentAta, agent.publicKey, agent.publicKey)]);
    const res = await served;
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    expect(answer.choices[0].message.content.length).toBeGreaterThan(0);
    const path = res.headers.get('x-gw-receipt') as string;
    const final = await until(
      () => receipt(path),
      (r) => r.status !== 'pending',
    );

    // Then the agent reopens its account and refunds the whole deposit at expiry.
    world.localnet.fundUsdc(agent.publicKey, 0n);
    world.localnet.advanceSlots(Number(expirySlot) - world.localnet.slot + 1);
    await send(agent, [refundInstruction({ programId: world.escrow!.programId, agent: agent.publicKey, mint: world.mint, serviceId })]);
    const agentEnd = world.localnet.usdcBalance(agent.publicKey);

    // Correct: the answer was delivered, so it is paid for (the claim lands, e.g. recreating the agent's token account first).
    expect({ status: final.status, agentGotEverythingBack: agentEnd === amount }).toEqual({ status: 'settled', agentGotEverythingBack: false });
  });

  it('a claim never exceeds the quote the agent agreed to, however much it deposited (usage unknown)', async () => {
    const body = chatBody();
    const quote = await quoteAmount(body);
    // The agent over-deposits (any amount >= the quote is accepted); the provider reports no usage.
    world.upstreams.openai.setDefault({ kind: 'reply', usage: false });
    const deposit = quote * 20n;
    const { header } = await escrowPaymentHeader(world, gateway, { amount: deposit });
    const res = await postChat(gateway, body, { 'payment-signature': header });
    expect(res.status).toBe(200);
    await res.json();
    const final = await until(
      () => receipt(res.headers.get('x-gw-receipt') as string),
      (r) => r.status !== 'pending',
    );
    expect(final.status).toBe('settled');
    expect(BigInt(final.amount_charged_atomic)).toBeLessThanOrEqual(quote);
  });
});
