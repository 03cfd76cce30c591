/**
 * `npm run demo -- --escrow`: the escrow scheme on the local chain. An agent reads the gateway's
 * escrow terms, deposits the quote into an escrow with the builders of libs/escrow, gets its
 * answer, and the gateway claims only what the answer really cost: the rest goes back to the agent
 * in the same claim. Prints the balances at each step. Everything stays on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { Keypair, LAMPORTS_PER_SOL, MessageV0, PublicKey, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { depositInstruction, escrowPda } from '../libs/escrow';
import { encodePaymentSignature } from '../libs/x402';
import { formatUsdc } from '../src/modules/billing/domain/atomic-usdc';
import { startDemoWorld } from './demo-world';

// Escrow is offered for quotes of at least GW_ESCROW_MIN_ATOMIC (31,500 atomic units by default): an answer of up to 4,000 tokens of GPT-4o is quoted above it.
const BODY = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Say hello to a new escrow user.' }], max_tokens: 4000 };

export async function escrowDemo(line: (title: string, text: string) => void): Promise<void> {
  const programId = Keypair.generate().publicKey;
  const [provider, agent] = [Keypair.generate(), Keypair.generate()];
  const { localnet, fake, mint, gateway, close } = await startDemoWorld({
    escrowProgramId: programId,
    env: () => ({ GW_ESCROW_PROGRAM_ID: programId.toBase58(), GW_ESCROW_PROVIDER_KEY: bs58.encode(provider.secretKey), GW_CLAIM_INTERVAL_MS: '100' }),
  });
  localnet.airdrop(provider.publicKey, LAMPORTS_PER_SOL / 10);
  localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL / 10); // the deposit's fee and the escrow accounts' rent (given back at the claim)
  localnet.fundUsdc(agent.publicKey, 5_000_000n);
  const url = `${gateway.url}/v1/chat/completions`;
  const balances = (): string => `agent ${formatUsdc(localnet.usdcBalance(agent.publicKey))} USDC, escrow provider ${formatUsdc(localnet.usdcBalance(provider.publicKey))} USDC`;

  try {
    line('The gateway', `${gateway.url} (local chain ${localnet.url}, fake provider ${fake.url})`);
    line('Balances before', balances());
    const terms = (await (await fetch(`${gateway.url}/v1/escrow/config`)).json()) as { program_id: string; provider: string; expiry: { min_slot: number } };
    const quoted = (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BODY) })).json()) as {
      accepts: Array<{ scheme: string; amount: string; network: string; asset: string }>;
    };
    const offer = quoted.accepts.find((entry) => entry.scheme === 'escrow');
    if (!offer) throw new Error('the 402 offers no escrow');
    line('1. The quote (HTTP 402), escrow entry', `${offer.amount} atomic USDC into program ${terms.program_id}, provider ${terms.provider}`);

    const serviceId = new Uint8Array(randomBytes(32));
    const amount = BigInt(offer.amount);
    const expirySlot = BigInt(terms.expiry.min_slot + 100);
    const deposit = depositInstruction({ programId, agent: agent.publicKey, provider: new PublicKey(terms.provider), mint, serviceId, amount, expirySlot });
    const transaction = new VersionedTransaction(MessageV0.compile({ payerKey: agent.publicKey, recentBlockhash: localnet.latestBlockhash().blockhash, instructions: [deposit] }));
    transaction.sign([agent]);
    const header = encodePaymentSignature(
      {
        x402Version: 2,
        resource: { url: '/v1/chat/completions', method: 'POST' },
        accepted: {
          scheme: 'escrow',
          network: offer.network as `${string}:${string}`,
          amount: offer.amount,
          asset: offer.asset,
          payTo: terms.provider,
          maxTimeoutSeconds: 300,
          escrowProgramId: terms.program_id,
        },
        payload: { kind: 'escrow', depositTx: Buffer.from(transaction.serialize()).toString('base64'), serviceId: Buffer.from(serviceId).toString('base64'), agentPubkey: agent.publicKey.toBase58() },
      },
      'snake',
    );
    line('2. The deposit (PAYMENT-SIGNATURE, escrow)', `${formatUsdc(amount)} USDC into escrow ${escrowPda(programId, agent.publicKey, serviceId)[0].toBase58()}, expiring at slot ${expirySlot}`);

    const answered = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': header }, body: JSON.stringify(BODY) });
    const completion = (await answered.json()) as { model: string; choices: Array<{ message: { content: string } }>; usage: Record<string, number> };
    line('3. The answer (HTTP 200)', `${completion.model}: "${completion.choices[0].message.content}" (usage ${JSON.stringify(completion.usage)})`);
    line('   Balances while the claim is queued', balances());

    const receiptPath = answered.headers.get('x-gw-receipt') as string;
    let receipt: { status: string } = { status: 'pending' };
    for (let i = 0; i < 100 && receipt.status === 'pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      receipt = (await (await fetch(`${gateway.url}${receiptPath}`)).json()) as { status: string };
    }
    line(`4. The claim and the refund (GET ${receiptPath})`, JSON.stringify(receipt, null, 2));
    line('Balances after', balances());
  } finally {
    await close();
  }
}
