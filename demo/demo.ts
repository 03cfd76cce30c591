/**
 * The whole paid flow on the local chain, for a newcomer (npm run demo): a LiteSVM chain with USDC
 * at the mainnet mint, a fake OpenAI-compatible provider, the gateway, and a fresh wallet that
 * pays for one chat completion with the official x402 client. Prints the quote, the payment, the
 * answer, the receipt and both balances before and after. Everything stays on 127.0.0.1.
 * `npm run demo -- --escrow` shows the escrow scheme instead (demo/escrow-demo.ts), `--channel` a
 * payment channel (demo/channel-demo.ts).
 */
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { ExactSvmScheme } from '@x402/svm';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, decodePaymentSignature } from '../libs/x402';
import { formatUsdc } from '../src/modules/billing/domain/atomic-usdc';
import { startDemoWorld } from './demo-world';
import { channelDemo, DemoRefusal } from './channel-demo';
import { escrowDemo } from './escrow-demo';

const coreClient = require('@x402/core/client') as typeof import('@x402/core/dist/cjs/client');
const { wrapFetchWithPayment } = require('@x402/fetch') as typeof import('@x402/fetch/dist/cjs');

const BODY = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to a new x402 user.' }], max_tokens: 100 };

async function main(): Promise<void> {
  if (process.argv.includes('--escrow')) return escrowDemo(line);
  if (process.argv.includes('--channel')) return channelDemo(line);
  const wallet = Keypair.generate();
  const { localnet, fake, recipient, config, gateway, close } = await startDemoWorld();
  localnet.fundUsdc(wallet.publicKey, 5_000_000n); // 5 USDC, and no SOL: the gateway sponsors the fee
  const url = `${gateway.url}/v1/chat/completions`;
  const balances = (): string => `payer ${formatUsdc(localnet.usdcBalance(wallet.publicKey))} USDC, gateway recipient ${formatUsdc(localnet.usdcBalance(recipient.publicKey))} USDC`;

  try {
    line('The gateway', `${gateway.url} (local chain ${localnet.url}, fake provider ${fake.url})`);
    line('Balances before', balances());

    const quoted = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BODY) });
    const body = (await quoted.json()) as { cost_breakdown: Record<string, string> };
    const offer = decodePaymentRequiredHeader(quoted.headers.get('payment-required') as string).accepts[0];
    line(
      '1. The quote (HTTP 402)',
      `${offer.amount} atomic USDC = ${body.cost_breakdown.total} USDC (provider ${body.cost_breakdown.provider_cost} + fee ${body.cost_breakdown.platform_fee}), pay to ${offer.payTo}, fee payer ${offer.extra.feePayer}`,
    );

    let sentPayment = '';
    const client = new coreClient.x402Client().register(
      config.solana.network as `${string}:${string}`,
      new ExactSvmScheme(await createKeyPairSignerFromBytes(wallet.secretKey), { rpcUrl: localnet.url }),
    );
    const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
      sentPayment = headers.get('payment-signature') ?? sentPayment;
      return fetch(input, init);
    };
    const answered = await wrapFetchWithPayment(recordingFetch, client)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BODY) });
    const payment = decodePaymentSignature(sentPayment);
    line(
      '2. The payment (PAYMENT-SIGNATURE)',
      `${payment.accepted.scheme} ${payment.accepted.amount} atomic USDC from ${wallet.publicKey.toBase58()}, a signed Solana transaction of ${payment.payload.kind === 'exact' ? Buffer.from(payment.payload.transaction, 'base64').length : 0} bytes`,
    );

    const completion = (await answered.json()) as { model: string; choices: Array<{ message: { content: string } }> };
    line('3. The answer (HTTP 200)', `${completion.model}: "${completion.choices[0].message.content}"`);
    const settlement = decodePaymentResponseHeader(answered.headers.get('payment-response') as string);
    line('   Settlement (PAYMENT-RESPONSE)', `transaction ${settlement.transaction}`);

    const receiptPath = answered.headers.get('x-gw-receipt') as string;
    const receipt = await (await fetch(`${gateway.url}${receiptPath}`)).json();
    line(`4. The receipt (GET ${receiptPath})`, JSON.stringify(receipt, null, 2));
    line('Balances after', balances());
  } finally {
    await close();
  }
}

function line(title: string, text: string): void {
  process.stdout.write(`\n${title}\n  ${text.replace(/\n/g, '\n  ')}\n`);
}

main().catch((err: unknown) => {
  if (err instanceof DemoRefusal) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
